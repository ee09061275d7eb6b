import { ConfigError, type NeedsApproval, type ToolAnnotations } from "@atrium/spec";

/**
 * Which of a server's tools wait for an approval before they run (`Tool.needsApproval`):
 * - `"destructive"` (the default): the tools MCP says may destroy, read from their annotations;
 * - `"always"`: every tool, whatever it declares (a server you do not trust to declare it);
 * - `"never"`: none (a server you trust with everything it offers).
 */
export type McpApprovalPolicy = "destructive" | "always" | "never";

export const MCP_APPROVAL_POLICIES: readonly McpApprovalPolicy[] = ["destructive", "always", "never"];

/** The three, as an error message lists them: `"destructive", "always" or "never"`. */
export const APPROVAL_POLICY_CHOICES = '"destructive", "always" or "never"';

export const DEFAULT_MCP_APPROVAL_POLICY: McpApprovalPolicy = "destructive";

/**
 * Whether a tool may destroy, as MCP's annotations say it: unless it only reads
 * (`readOnlyHint: true`) or says its writes destroy nothing (`destructiveHint: false`). MCP's
 * defaults are the cautious ones (`readOnlyHint: false`, `destructiveHint: true`), so a tool
 * with no annotations at all may destroy.
 */
export function mayDestroy(annotations: ToolAnnotations | undefined): boolean {
  return annotations?.readOnlyHint !== true && annotations?.destructiveHint !== false;
}

/** The `needsApproval` of a server's tool under `policy`: fixed per tool, it never depends on the input. */
export function needsApprovalUnder(
  policy: McpApprovalPolicy | undefined,
  annotations: ToolAnnotations | undefined,
): NeedsApproval {
  switch (policy ?? DEFAULT_MCP_APPROVAL_POLICY) {
    case "always":
      return true;
    case "never":
      return false;
    default:
      return mayDestroy(annotations);
  }
}

/**
 * Refuses a policy that is none of the three. A config file is checked by its schema; a config
 * built in code reaches here unchecked, and a misspelt `"allways"` must not quietly mean the default.
 */
export function checkApprovalPolicy(server: string, policy: unknown): void {
  if (policy === undefined || MCP_APPROVAL_POLICIES.includes(policy as McpApprovalPolicy)) return;
  throw new ConfigError(
    `MCP server "${server}": approval must be ${APPROVAL_POLICY_CHOICES}, not ${JSON.stringify(policy)}`,
  );
}
