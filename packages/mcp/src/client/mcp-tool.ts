import type { JsonSchema, Tool, ToolAnnotations, ToolContext, ValidationResult } from "@atrium/spec";
import { type McpApprovalPolicy, needsApprovalUnder } from "../config/approval-policy.js";
import type { InputValidator } from "../json-schema-validator.js";
import { DEFAULT_MCP_LIMITS } from "../limits.js";
import { toToolResult } from "./call-result.js";
import type { McpClient, McpToolDescription } from "./mcp-client.js";

/** A spec `Tool` backed by a tool of an MCP server; `mcpName` is what the server calls it. */
export interface McpTool extends Tool<Record<string, unknown>> {
  readonly server: string;
  readonly mcpName: string;
}

export function mcpTool(
  client: McpClient,
  description: McpToolDescription,
  name: string,
  validator: InputValidator,
  approval?: McpApprovalPolicy,
): McpTool {
  const annotations = description.annotations ? toolAnnotations(description.annotations) : undefined;
  return {
    name,
    server: client.name,
    mcpName: description.name,
    description: capDescription(
      description.description ?? description.title ?? `${description.name} (MCP server "${client.name}")`,
    ),
    inputSchema: description.inputSchema as JsonSchema,
    ...(description.outputSchema ? { outputSchema: description.outputSchema as JsonSchema } : {}),
    ...(annotations ? { annotations } : {}),
    needsApproval: needsApprovalUnder(approval, annotations),
    validate: (input: unknown): ValidationResult<Record<string, unknown>> => validator(input ?? {}),
    async execute(input, context: ToolContext) {
      const result = await client.callTool(
        description.name,
        input ?? {},
        { signal: context.signal, onProgress: context.onProgress },
        name,
      );
      return toToolResult(name, result);
    },
  };
}

function capDescription(text: string): string {
  if (text.length <= DEFAULT_MCP_LIMITS.maxToolDescriptionChars) return text;
  return `${text.slice(0, DEFAULT_MCP_LIMITS.maxToolDescriptionChars)} [… description cut at ${DEFAULT_MCP_LIMITS.maxToolDescriptionChars} characters]`;
}

/** The server's hints, only the fields MCP defines and only of their types (a server is not trusted to shape them). */
function toolAnnotations(given: Record<string, unknown>): ToolAnnotations {
  const hints: { -readonly [Key in keyof ToolAnnotations]: ToolAnnotations[Key] } = {};
  if (typeof given.title === "string") hints.title = given.title;
  for (const key of ["readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"] as const) {
    if (typeof given[key] === "boolean") hints[key] = given[key];
  }
  return hints;
}
