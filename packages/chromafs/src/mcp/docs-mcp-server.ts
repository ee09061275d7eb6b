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
import { type SessionPoolLimits, SessionWorkerPool } from "../session-pool/session-worker-pool.js";
import { storeRecipeOf } from "../store/store-recipe.js";

export interface DocsMcpOptions extends DocsSessionOptions {
  /** Server name shown to clients (default "atrium-docs"). */
  name?: string;
  /**
   * Where each client's commands run. "workers" (the default when the store can be opened in a
   * worker thread: a `ChromaDocStore` on a URL, a `LocalFolderStore`): a `SessionWorkerPool`
   * started and closed with the server, so one client's heavy command never stalls the others.
   * A pool of your own (you close it). "in-process": on this thread, where `treeCache`,
   * `accelerateGrep`, `pageCacheBytes` and `yieldPoint` apply (a pool's workers use defaults).
   */
  sessions?: "workers" | "in-process" | SessionWorkerPool;
  /** Limits of the pool `sessions: "workers"` starts (workers, commands at once, queue). */
  poolLimits?: Partial<SessionPoolLimits>;
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
 * directory last as long as the MCP session and no other client sees them), in `pool` when
 * given, and `search`, both seeing only what `groups` allow.
 */
export async function openDocsMcpSession(
  options: DocsSessionOptions & { pool?: SessionWorkerPool },
): Promise<SessionTools> {
  const session = options.pool
    ? await options.pool.openSession({ groups: options.groups, cwd: options.cwd })
    : await openDocsSession(options);
  return {
    tools: [docsBashTool(session), docsSearchTool(options.store, session.access)],
    close: () => session.close(),
  };
}

/** The pool the server's sessions run in, and whether the server started it (and so stops it). */
async function sessionPool(
  options: DocsMcpOptions,
  defaults: Partial<SessionPoolLimits>,
): Promise<{ pool: SessionWorkerPool | undefined; owned: boolean }> {
  const mode = options.sessions ?? (storeRecipeOf(options.store) ? "workers" : "in-process");
  if (mode instanceof SessionWorkerPool) return { pool: mode, owned: false };
  if (mode === "in-process") return { pool: undefined, owned: false };
  const pool = await SessionWorkerPool.start({
    store: options.store,
    limits: { ...defaults, ...options.poolLimits },
  });
  return { pool, owned: true };
}

/** Serves the docs shell over stdio (what MCP hosts launch): the local user, with `groups`. */
export async function serveDocsMcp(options: DocsMcpOptions): Promise<ServedMcp> {
  await openDocsSession(options); // fail now (bad store, missing tree), not at the first call
  // One client: one worker keeps its commands off the thread that answers pings and cancellations.
  const { pool, owned } = await sessionPool(options, { poolWorkers: 1 });
  try {
    const served = await serveMcp({
      name: options.name ?? "atrium-docs",
      version: "0.1.0",
      instructions: INSTRUCTIONS,
      openSession: () => openDocsMcpSession({ ...options, pool }),
    });
    if (!owned || !pool) return served;
    const closed = served.closed.then(() => pool.close());
    const close = () => served.close().then(() => pool.close());
    return { closed, close, [Symbol.asyncDispose]: close };
  } catch (error) {
    if (owned) await pool?.close();
    throw error;
  }
}

/**
 * Serves the docs shell over streamable HTTP on `port` (0 picks a free one), loopback by
 * default, one docs session per MCP session with its identity's groups (or `groups` without
 * `auth`), each pinned to a worker of the server's session pool.
 */
export async function serveDocsMcpHttp(options: DocsMcpHttpOptions): Promise<ServedMcpHttp> {
  await openDocsSession(options);
  const { pool, owned } = await sessionPool(options, {});
  try {
    const served = await serveMcpHttp({
      name: options.name ?? "atrium-docs",
      version: "0.1.0",
      instructions: INSTRUCTIONS,
      port: options.port,
      host: options.host,
      auth: options.auth,
      health: options.health,
      openSession: (identity) =>
        openDocsMcpSession({ ...options, groups: identity ? identity.groups : options.groups, pool }),
    });
    if (!owned || !pool) return served;
    // Calls in flight finish (or are answered) first; then the workers stop.
    const close = () => served.close().then(() => pool.close());
    return {
      url: served.url,
      get sessionCount() {
        return served.sessionCount;
      },
      get inFlightCount() {
        return served.inFlightCount;
      },
      close,
      [Symbol.asyncDispose]: close,
    };
  } catch (error) {
    if (owned) await pool?.close();
    throw error;
  }
}
