import type { Readable, Writable } from "node:stream";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { DEFAULT_MCP_LIMITS } from "../limits.js";
import { createMcpServer } from "./create-server.js";
import type { ServeMcpOptions } from "./serve-options.js";
import { openSessionTools } from "./session-tools.js";
import { limitStdioLines } from "./stdio-line-limit.js";

export interface StdioStreams {
  stdin?: Readable;
  stdout?: Writable;
  /** One request line at most (default `maxStdioLineBytes`, 10 MB). */
  maxLineBytes?: number;
}

/** `await using served = await serveMcp(...)` closes it at the end of the block. */
export interface ServedMcp extends AsyncDisposable {
  close(): Promise<void>;
  /** Resolves when the client goes away (stdin closed) or close() was called. */
  closed: Promise<void>;
}

/**
 * Serves tools (or an agent as one tool) over stdio: the way Claude Desktop, Cursor and the
 * Inspector start a server. Nothing else may write to stdout while it runs; log to stderr.
 */
export async function serveMcp(options: ServeMcpOptions, streams: StdioStreams = {}): Promise<ServedMcp> {
  // The local process is the user: no identity, the session's tools as configured.
  const session = await openSessionTools(options, undefined);
  const server = createMcpServer(session.options);
  const stdin = streams.stdin ?? process.stdin;
  const stdout = streams.stdout ?? process.stdout;
  const maxLineBytes = streams.maxLineBytes ?? DEFAULT_MCP_LIMITS.maxStdioLineBytes;
  // Lines reach the SDK one whole line at a time, none over the limit: its own buffer limit
  // (which closes the transport) is set just past it so it never trips.
  const transport = new StdioServerTransport(limitStdioLines(stdin, stdout, maxLineBytes), stdout, {
    maxBufferSize: maxLineBytes + 1,
  });
  const closed = new Promise<void>((resolve) => {
    server.onclose = () =>
      void session
        .close()
        .catch(() => {})
        .then(resolve);
  });
  // The SDK transport does not notice EOF; a server whose client left must end (on Windows a
  // dying client sends no signal, so a closed stdin is the only sign).
  const end = () => void server.close();
  stdin.once("end", end).once("close", end).once("error", end);
  await server.connect(transport);
  const close = () => server.close();
  return { close, closed, [Symbol.asyncDispose]: close };
}
