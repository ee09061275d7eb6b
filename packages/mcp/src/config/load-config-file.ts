import { readFile, stat } from "node:fs/promises";
import { ConfigError, formatIssues, type ValidationIssue } from "@atrium/spec";
import type { z } from "zod";
import { DEFAULT_MCP_LIMITS } from "../limits.js";
import { type McpServerConfig, serverConfigSchemaFor } from "./server-config.js";

/**
 * Reads the `{"mcpServers": {...}}` file that Claude Desktop, Claude Code and Cursor use.
 * Entries with `"disabled": true` are skipped. Errors name the file and the field.
 */
export async function loadMcpConfigFile(path: string): Promise<Record<string, McpServerConfig>> {
  let text: string;
  try {
    const { size } = await stat(path);
    if (size > DEFAULT_MCP_LIMITS.maxConfigFileBytes) {
      throw new ConfigError(
        `${path}: MCP config file is ${size} bytes, more than ${DEFAULT_MCP_LIMITS.maxConfigFileBytes}`,
      );
    }
    text = await readFile(path, "utf8");
  } catch (error) {
    if (error instanceof ConfigError) throw error;
    const reason = (error as NodeJS.ErrnoException).code === "ENOENT" ? "no such file" : String(error);
    throw new ConfigError(`${path}: cannot read MCP config file (${reason})`, { cause: error });
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new ConfigError(`${path}: not valid JSON (${(error as Error).message})`, { cause: error });
  }
  return parseMcpConfig(json, path);
}

/** Validates an already parsed config object; `source` names it in errors. */
export function parseMcpConfig(json: unknown, source = "MCP config"): Record<string, McpServerConfig> {
  const fail = (issues: ValidationIssue[]): never => {
    throw new ConfigError(`${source}: ${formatIssues(issues)}`);
  };
  if (typeof json !== "object" || json === null || Array.isArray(json)) {
    fail([{ path: [], message: 'expected an object like {"mcpServers": {"name": {"command": "..."}}}' }]);
  }
  const servers = (json as { mcpServers?: unknown }).mcpServers;
  if (typeof servers !== "object" || servers === null || Array.isArray(servers)) {
    fail([
      { path: ["mcpServers"], message: 'expected an object mapping server names to {"command"} or {"url"}' },
    ]);
  }
  const result: Record<string, McpServerConfig> = {};
  const issues: ValidationIssue[] = [];
  for (const [name, entry] of Object.entries(servers as Record<string, unknown>)) {
    if (typeof entry === "object" && entry !== null && (entry as { disabled?: unknown }).disabled === true)
      continue;
    if (typeof entry !== "object" || entry === null || !("command" in entry || "url" in entry)) {
      issues.push({
        path: ["mcpServers", name],
        message: 'expected "command" (a stdio server) or "url" (an HTTP server)',
      });
      continue;
    }
    const parsed = serverConfigSchemaFor(entry).safeParse(entry);
    if (parsed.success) result[name] = parsed.data as McpServerConfig;
    else issues.push(...zodIssues(parsed.error, ["mcpServers", name]));
  }
  if (issues.length) fail(issues);
  return result;
}

function zodIssues(error: z.ZodError, prefix: (string | number)[]): ValidationIssue[] {
  return error.issues.map((issue) => ({
    path: [...prefix, ...issue.path.map((key) => (typeof key === "symbol" ? String(key) : key))],
    message: issue.message,
  }));
}
