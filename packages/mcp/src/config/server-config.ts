import { z } from "zod";
import { APPROVAL_POLICY_CHOICES, MCP_APPROVAL_POLICIES, type McpApprovalPolicy } from "./approval-policy.js";

/** A server started as a child process speaking MCP over stdin/stdout. */
export interface McpStdioServerConfig {
  type?: "stdio";
  command: string;
  args?: string[];
  /** Added to a minimal inherited environment (HOME, PATH, SHELL, TERM, USER, LOGNAME). */
  env?: Record<string, string>;
  cwd?: string;
  /** A server that may fail to start without failing the program that asked for it. */
  optional?: boolean;
  /** Which of its tools wait for an approval (default `"destructive"`: those MCP says may destroy). */
  approval?: McpApprovalPolicy;
}

/**
 * A server reached over HTTP. `type: "http"` is streamable HTTP only, `"sse"` the older
 * HTTP+SSE transport only; without `type`, streamable HTTP is tried first, then SSE.
 */
export interface McpHttpServerConfig {
  type?: "http" | "streamable-http" | "sse";
  url: string;
  headers?: Record<string, string>;
  /** A server that may fail to connect without failing the program that asked for it. */
  optional?: boolean;
  /** Which of its tools wait for an approval (default `"destructive"`: those MCP says may destroy). */
  approval?: McpApprovalPolicy;
}

export type McpServerConfig = McpStdioServerConfig | McpHttpServerConfig;

export function isStdioConfig(config: McpServerConfig): config is McpStdioServerConfig {
  return "command" in config;
}

const approval = z
  .enum(MCP_APPROVAL_POLICIES as [McpApprovalPolicy, ...McpApprovalPolicy[]], {
    error: `expected ${APPROVAL_POLICY_CHOICES}`,
  })
  .optional();

const stringRecord = z.record(z.string(), z.string({ error: "expected a string value" }));

const stdioSchema = z.object({
  type: z.literal("stdio").optional(),
  command: z.string({ error: "expected a command string" }).trim().min(1, "must not be empty"),
  args: z
    .array(z.string({ error: "expected a string" }), { error: "expected an array of strings" })
    .optional(),
  env: stringRecord.optional(),
  cwd: z.string().min(1).optional(),
  optional: z.boolean({ error: "expected true or false" }).optional(),
  approval,
});

const httpSchema = z.object({
  type: z.enum(["http", "streamable-http", "sse"]).optional(),
  url: z.url({ protocol: /^https?$/, error: "expected an http(s) URL" }),
  headers: stringRecord.optional(),
  optional: z.boolean({ error: "expected true or false" }).optional(),
  approval,
});

/**
 * Picks the schema by the key that says which kind of server it is, so errors name the real
 * field (`args.1: expected a string`) instead of "no union member matched".
 */
export function serverConfigSchemaFor(value: unknown) {
  if (typeof value === "object" && value !== null && "url" in value && !("command" in value))
    return httpSchema;
  return stdioSchema;
}
