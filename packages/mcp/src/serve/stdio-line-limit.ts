import { PassThrough, type Readable, type Writable } from "node:stream";

/**
 * Stdin for the SDK's stdio transport with a byte limit per request line. The transport closes
 * itself when its buffer passes its limit, so one line over 10 MB made the server exit 0 with no
 * word. Here a longer line is dropped while it streams in (never buffered whole) and answered on
 * stdout with a JSON-RPC "Invalid Request" (-32600) naming the limit, carrying the request's id
 * when the line starts with it; the lines after it are served as usual.
 */
export function limitStdioLines(stdin: Readable, stdout: Writable, maxLineBytes: number): Readable {
  const lines = new PassThrough();
  let parts: Buffer[] = [];
  let length = 0;
  /** The first bytes of a line being dropped (to find its id), or undefined while the line fits. */
  let dropping: Buffer | undefined;

  const refuse = (head: Buffer) => {
    const id = requestId(head);
    const message = `Request line over ${maxLineBytes} bytes (the server's stdio line limit, maxStdioLineBytes); it was dropped, send a smaller request`;
    stdout.write(`${JSON.stringify({ jsonrpc: "2.0", id, error: { code: -32600, message } })}\n`);
  };

  stdin.on("data", (chunk: Buffer | string) => {
    const bytes = typeof chunk === "string" ? Buffer.from(chunk) : chunk;
    let start = 0;
    while (start <= bytes.length) {
      const end = bytes.indexOf(0x0a, start);
      const piece = bytes.subarray(start, end === -1 ? bytes.length : end);
      if (dropping === undefined) {
        length += piece.length;
        if (length > maxLineBytes) {
          dropping = Buffer.concat([...parts, piece]).subarray(0, ID_SEARCH_BYTES);
          parts = [];
        } else if (piece.length > 0) parts.push(piece);
      }
      if (end === -1) break;
      if (dropping !== undefined) refuse(dropping);
      else lines.write(Buffer.concat([...parts, Buffer.from("\n")]));
      parts = [];
      length = 0;
      dropping = undefined;
      start = end + 1;
    }
  });
  stdin.once("end", () => {
    if (dropping !== undefined) refuse(dropping);
    else if (length > 0) lines.write(Buffer.concat(parts));
    lines.end();
  });
  stdin.once("error", (error) => lines.destroy(error));
  return lines;
}

/** Bytes at the start of a dropped line searched for its id. */
const ID_SEARCH_BYTES = 1_024;

/**
 * The id of a request whose line begins `{"jsonrpc":"2.0","id":...` or `{"id":...`, as the SDK
 * and most clients write it; null otherwise (JSON-RPC's id for a request it could not read).
 */
function requestId(head: Buffer): string | number | null {
  const match =
    /^\s*\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?"id"\s*:\s*("(?:[^"\\]|\\.){0,200}"|-?\d{1,15})\s*[,}]/.exec(
      head.toString("utf8"),
    );
  if (!match) return null;
  return JSON.parse(match[1] as string) as string | number;
}
