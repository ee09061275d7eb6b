import { type ServedMcp, type ServedMcpHttp, serveMcp, serveMcpHttp } from "@atrium/mcp";
import type { Tool } from "@atrium/spec";
import { docsBashTool } from "../agent/docs-bash-tool.js";
import { docsSearchTool } from "../agent/docs-search-tool.js";
import { type DocsSessionOptions, openDocsSession } from "../session/docs-session.js";

export interface DocsMcpOptions extends DocsSessionOptions {
  /** Server name shown to clients (default "atrium-docs"). */
  name?: string;
}

const INSTRUCTIONS =
  "Documentation as a read-only filesystem. Explore with the bash tool (ls, cat, grep -rn, find) " +
  "and rank pages with search; cite the paths you read.";

/**
 * The tools an MCP server exposes: `bash` and `search`. Each bash call gets a fresh session
 * (sub-millisecond with the shared tree cache), so clients of one server never see each other's
 * /tmp and a call can't leave state behind for the next.
 */
export function docsMcpTools(options: DocsSessionOptions): Tool[] {
  const access = { groups: [...(options.groups ?? [])] };
  return [docsBashTool(() => openDocsSession(options)), docsSearchTool(options.store, access)];
}

/** Serves the docs shell over stdio (what MCP hosts launch). */
export async function serveDocsMcp(options: DocsMcpOptions): Promise<ServedMcp> {
  await openDocsSession(options); // fail now (bad store, missing tree), not at the first call
  return serveMcp({
    name: options.name ?? "atrium-docs",
    version: "0.1.0",
    tools: docsMcpTools(options),
    instructions: INSTRUCTIONS,
  });
}

/** Serves the docs shell over streamable HTTP on `port` (0 picks a free one), loopback by default. */
export async function serveDocsMcpHttp(
  options: DocsMcpOptions & { port?: number; host?: string },
): Promise<ServedMcpHttp> {
  await openDocsSession(options);
  return serveMcpHttp({
    name: options.name ?? "atrium-docs",
    version: "0.1.0",
    tools: docsMcpTools(options),
    instructions: INSTRUCTIONS,
    port: options.port,
    host: options.host,
  });
}
