import type { McpIdentity } from "./client-identity.js";
import type { FixedServeMcpOptions, ServeMcpOptions } from "./serve-options.js";

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
