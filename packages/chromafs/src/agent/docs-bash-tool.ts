import { schemaToolInput } from "@atrium/kit";
import type { Tool } from "@atrium/spec";
import { z } from "zod";
import { resolveChromafsLimits } from "../limits.js";
import type { CommandResult } from "../session/docs-session.js";
import type { DocsShell } from "../session/docs-shell.js";
import { boundOutput } from "./bounded-output.js";

const Input = z.strictObject({
  command: z
    .string()
    .min(1)
    .max(100_000)
    .describe("A bash command line, e.g. `grep -rn 'API key' /api | head`"),
});

export const DOCS_BASH_DESCRIPTION =
  "Run a bash command over the documentation, mounted read-only at / (one file per page). " +
  'Use ls, cat, head, grep -rn, find, wc and pipes; `search "<query>"` ranks pages by meaning. ' +
  "/tmp is writable scratch space. Returns stdout, stderr and the exit code; long output is cut.";

export interface DocsBashToolOptions {
  name?: string;
  /** Bytes kept of stdout and of stderr (default `maxToolOutputBytes` of the limits). */
  maxOutputBytes?: number;
  /** Per-command wall-clock limit (default `commandTimeoutMs` of the limits). */
  timeoutMs?: number;
}

/**
 * The agent-facing `bash` tool. Given a session (in process or pooled), every call runs in it (so /tmp persists);
 * given a factory, every call gets a fresh session (what a server shared by clients wants).
 * A failing command is a value (its stderr and exit code), never a thrown error — except a
 * command line that could not reach the store, which throws its `StoreUnavailableError`.
 */
export function docsBashTool(
  session: DocsShell | (() => Promise<DocsShell>),
  options: DocsBashToolOptions = {},
): Tool<{ command: string }, CommandResult> {
  const { maxToolOutputBytes: maxBytes, commandTimeoutMs: timeoutMs } = resolveChromafsLimits({
    maxToolOutputBytes: options.maxOutputBytes,
    commandTimeoutMs: options.timeoutMs,
  });
  const name = options.name ?? "bash";
  return {
    name,
    description: DOCS_BASH_DESCRIPTION,
    ...schemaToolInput(Input, name),
    // The docs are read-only (writes go to a scratch /tmp that the next call may not see).
    annotations: { readOnlyHint: true, openWorldHint: false },
    async execute({ command }, context) {
      const signal = AbortSignal.any([context.signal, AbortSignal.timeout(timeoutMs)]);
      const target = typeof session === "function" ? await session() : session;
      try {
        const result = await target.exec(command, { signal });
        // An error, not an exit status: an MCP client that only looks at isError must not
        // take a store outage for an answer.
        if (result.storeUnavailable) throw result.storeUnavailable;
        return {
          stdout: boundOutput(result.stdout, maxBytes),
          stderr: boundOutput(result.stderr, maxBytes),
          exitCode: result.exitCode,
        };
      } finally {
        if (typeof session === "function") await target.close();
      }
    },
  };
}
