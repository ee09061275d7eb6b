import type { Socket } from "node:net";

/**
 * What `atrium-vm exec/cp/stop` say to the process serving a named machine (`atrium-vm start`),
 * over the Unix socket in the machine's directory: one JSON request per connection, answered
 * by JSON lines (bytes in base64). The only module both sides share.
 */
export type ControlRequest =
  | {
      op: "exec";
      argv: string[];
      env?: Record<string, string>;
      cwd?: string;
      timeoutMs?: number;
      /** base64 */
      stdin?: string;
    }
  | { op: "write"; path: string; data: string; mode?: number }
  | { op: "read"; path: string }
  /** An absolute path on the serving host: the machine's snapshot is written there. */
  | { op: "snapshot"; path: string }
  | { op: "stop" };

export type ControlReply =
  | { type: "stdout"; data: string }
  | { type: "stderr"; data: string }
  | { type: "exit"; exitCode: number; timedOut: boolean }
  | { type: "data"; data: string }
  | { type: "ok" }
  | { type: "snapshot"; stateBytes: number; diskBytes: number; pausedMs: number }
  | { type: "error"; message: string };

/** Writes one line; false when the socket's buffer is full (wait for its `drain`). */
export function sendLine(socket: Socket, message: ControlRequest | ControlReply): boolean {
  return socket.write(`${JSON.stringify(message)}\n`);
}

/** Why a line could not be read: it was not JSON, or ran past the line limit. */
export class ControlLineError extends Error {}

/**
 * Calls `onLine` with each JSON line the socket receives. A line that is not JSON, or longer
 * than `maxLineBytes` (a peer that never sends a newline must not fill our memory), goes to
 * `onBadLine` and nothing more is read. When `onLine` returns a promise (its output is
 * backed up) the socket is paused until it settles.
 */
export function onLines(
  socket: Socket,
  onLine: (value: unknown) => unknown,
  options: { maxLineBytes: number; onBadLine: (error: ControlLineError) => void },
): void {
  let chunks: Buffer[] = [];
  let buffered = 0;
  let stopped = false;
  let waiting = 0;
  const bad = (error: ControlLineError) => {
    stopped = true;
    socket.pause();
    options.onBadLine(error);
  };
  socket.on("data", (chunk: Buffer) => {
    if (stopped) return;
    let start = 0;
    for (let newline = chunk.indexOf(10); newline >= 0; newline = chunk.indexOf(10, start)) {
      const piece = chunk.subarray(start, newline);
      start = newline + 1;
      if (buffered + piece.byteLength > options.maxLineBytes)
        return bad(new ControlLineError(`a control line is longer than ${options.maxLineBytes} bytes`));
      const line = chunks.length
        ? Buffer.concat([...chunks, piece]).toString("utf8")
        : piece.toString("utf8");
      chunks = [];
      buffered = 0;
      if (!line) continue;
      let value: unknown;
      try {
        value = JSON.parse(line);
      } catch (error) {
        return bad(new ControlLineError(`a control line is not JSON (${(error as Error).message})`));
      }
      const pending = onLine(value);
      if (pending instanceof Promise) {
        if (waiting++ === 0) socket.pause();
        pending.finally(() => {
          if (--waiting === 0 && !stopped) socket.resume();
        });
      }
    }
    const rest = chunk.subarray(start);
    if (buffered + rest.byteLength > options.maxLineBytes)
      return bad(new ControlLineError(`a control line is longer than ${options.maxLineBytes} bytes`));
    if (rest.byteLength) {
      chunks.push(rest);
      buffered += rest.byteLength;
    }
  });
}

const isString = (value: unknown): value is string => typeof value === "string";
const isStringRecord = (value: unknown): value is Record<string, string> =>
  typeof value === "object" &&
  value !== null &&
  !Array.isArray(value) &&
  Object.values(value).every(isString);

/** A request as the server received it, checked field by field; throws ControlLineError. */
export function parseControlRequest(value: unknown): ControlRequest {
  const request = value as Record<string, unknown>;
  const wrong = (what: string) => new ControlLineError(`bad control request: ${what}`);
  if (typeof value !== "object" || value === null || Array.isArray(value)) throw wrong("not a JSON object");
  const optional = (key: string, check: (v: unknown) => boolean, what: string) => {
    if (request[key] !== undefined && !check(request[key])) throw wrong(`${key} must be ${what}`);
  };
  switch (request.op) {
    case "exec":
      if (!Array.isArray(request.argv) || request.argv.length === 0 || !request.argv.every(isString))
        throw wrong("argv must be a non-empty list of strings");
      optional("env", isStringRecord, "an object of strings");
      optional("cwd", isString, "a string");
      optional("timeoutMs", (v) => Number.isSafeInteger(v) && (v as number) >= 0, "a whole number");
      optional("stdin", isString, "base64 text");
      break;
    case "write":
      if (!isString(request.path) || !isString(request.data))
        throw wrong("write needs path and data strings");
      optional(
        "mode",
        (v) => Number.isInteger(v) && (v as number) >= 0 && (v as number) <= 0o7777,
        "a file mode",
      );
      break;
    case "read":
      if (!isString(request.path)) throw wrong("read needs a path string");
      break;
    case "snapshot":
      if (!isString(request.path) || !request.path.startsWith("/"))
        throw wrong("snapshot needs an absolute path string");
      break;
    case "stop":
      break;
    default:
      throw wrong(`unknown op ${JSON.stringify(request.op)}`);
  }
  return value as ControlRequest;
}
