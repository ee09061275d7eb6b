import type { Tool } from "@atrium/spec";
import type { McpIdentity } from "./client-identity.js";
import type { FixedServeMcpOptions, ServeMcpOptions } from "./served-tools.js";

/** The tools one client's session gets, and what to release when that session ends. */
export interface SessionTools {
  tools: readonly Tool[];
  close?(): Promise<void>;
}

/**
 * A tool set opened per session: what a server whose clients see different things serves
 * (chromafs opens a docs session with the identity's groups; the palace maps them to wings).
 */
export interface ServeSessionOptions {
  name: string;
  version: string;
  instructions?: string;
  /**
   * Called once per HTTP session (and once for stdio) with the client's identity: undefined
   * when serving is not authenticated (stdio, whose client is the local user, or HTTP without
   * `auth`). A throw refuses the session with its message.
   */
  openSession(identity: McpIdentity | undefined): SessionTools | Promise<SessionTools>;
}

/** What `createMcpServer` serves for one session, and how to end it. */
export interface OpenedSession {
  options: FixedServeMcpOptions;
  close(): Promise<void>;
}

/** Resolves a per-session tool set; fixed tool sets and agents pass through unchanged. */
export async function openSessionTools(
  options: ServeMcpOptions,
  identity: McpIdentity | undefined,
): Promise<OpenedSession> {
  if (!("openSession" in options)) return { options, close: async () => {} };
  const { openSession, ...rest } = options;
  const opened = await openSession(identity);
  let closed = false;
  return {
    options: { ...rest, tools: opened.tools },
    async close() {
      if (closed) return;
      closed = true;
      await opened.close?.();
    },
  };
}
