import {
  type McpHttpAuth,
  type ServedMcp,
  type ServedMcpHttp,
  type ServeMcpHttpOptions,
  type SessionTools,
  serveMcp,
  serveMcpHttp,
} from "@atrium/mcp";
import { docsBashTool } from "../agent/docs-bash-tool.js";
import { docsSearchTool } from "../agent/docs-search-tool.js";
import { type DocsSessionOptions, openDocsSession } from "../session/docs-session.js";

export interface DocsMcpOptions extends DocsSessionOptions {
  /** Server name shown to clients (default "atrium-docs"). */
  name?: string;
}

export interface DocsMcpHttpOptions extends DocsMcpOptions {
  port?: number;
  host?: string;
  /**
   * Who may connect (`loadTokensFile` from @atrium/mcp gives one): each MCP session then sees
   * what its token's groups allow, and `groups` is not used. Without it, every client gets
   * `groups`, and only loopback hosts are allowed.
   */
  auth?: McpHttpAuth;
  /** Answered at `GET /health` (the store's and its Chroma server's state). */
  health?: ServeMcpHttpOptions["health"];
}

const INSTRUCTIONS =
  "Documentation as a read-only filesystem. Explore with the bash tool (ls, cat, grep -rn, find) " +
  "and rank pages with search; cite the paths you read.";

/**
 * The tools of one MCP session: `bash` in a docs session of its own (its /tmp and working
 * directory last as long as the MCP session and no other client sees them) and `search`, both
 * seeing only what `groups` allow.
 */
export async function openDocsMcpSession(options: DocsSessionOptions): Promise<SessionTools> {
  const session = await openDocsSession(options);
  return {
    tools: [docsBashTool(session), docsSearchTool(options.store, session.access)],
    close: () => session.close(),
  };
}

/** Serves the docs shell over stdio (what MCP hosts launch): the local user, with `groups`. */
export async function serveDocsMcp(options: DocsMcpOptions): Promise<ServedMcp> {
  await openDocsSession(options); // fail now (bad store, missing tree), not at the first call
  return serveMcp({
    name: options.name ?? "atrium-docs",
    version: "0.1.0",
    instructions: INSTRUCTIONS,
    openSession: () => openDocsMcpSession(options),
  });
}

/**
 * Serves the docs shell over streamable HTTP on `port` (0 picks a free one), loopback by
 * default, one docs session per MCP session with its identity's groups (or `groups` without
 * `auth`).
 */
export async function serveDocsMcpHttp(options: DocsMcpHttpOptions): Promise<ServedMcpHttp> {
  await openDocsSession(options);
  return serveMcpHttp({
    name: options.name ?? "atrium-docs",
    version: "0.1.0",
    instructions: INSTRUCTIONS,
    port: options.port,
    host: options.host,
    auth: options.auth,
    health: options.health,
    openSession: (identity) =>
      openDocsMcpSession({ ...options, groups: identity ? identity.groups : options.groups }),
  });
}
