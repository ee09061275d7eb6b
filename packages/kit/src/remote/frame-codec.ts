/**
 * Length-prefixed frames over a byte stream (a pipe to or from a sandboxed process). A frame is
 * a 4-byte big-endian length, one kind byte, then the payload: JSON text, or raw bytes (a
 * memory snapshot, say, which would triple in size as JSON).
 *
 * The reader treats its input as hostile: the other end may be code that escaped its
 * interpreter. A declared length over the reader's limit is refused before any of it is
 * buffered, and a frame that does not parse is an error, never a crash of the host.
 */

export type Frame = { kind: "json"; value: unknown } | { kind: "bytes"; bytes: Uint8Array };

const HEADER_BYTES = 5;
const KIND_JSON = 0;
const KIND_BYTES = 1;

export class FrameError extends Error {
  override name = "FrameError";
}

export function encodeJsonFrame(value: unknown): Buffer {
  const json = Buffer.from(JSON.stringify(value), "utf8");
  return withHeader(KIND_JSON, json);
}

export function encodeBytesFrame(bytes: Uint8Array): Buffer {
  return withHeader(KIND_BYTES, bytes);
}

function withHeader(kind: number, payload: Uint8Array): Buffer {
  const header = Buffer.allocUnsafe(HEADER_BYTES);
  header.writeUInt32BE(payload.byteLength + 1, 0);
  header[4] = kind;
  return Buffer.concat([header, payload]);
}

/**
 * Cuts a byte stream into frames. `push` returns the frames completed by a chunk, in order, and
 * throws `FrameError` when the stream breaks the format (after which the stream is unusable).
 */
export class FrameReader {
  private chunks: Buffer[] = [];
  private buffered = 0;
  private broken: FrameError | undefined;

  constructor(private readonly maxFrameBytes: number) {}

  push(chunk: Buffer): Frame[] {
    if (this.broken) throw this.broken;
    this.chunks.push(chunk);
    this.buffered += chunk.byteLength;
    const frames: Frame[] = [];
    for (;;) {
      if (this.buffered < 4) break;
      const head = this.peek(4);
      const length = head.readUInt32BE(0);
      if (length < 1 || length > this.maxFrameBytes + 1) {
        this.broken = new FrameError(
          `a frame of ${length - 1} bytes was announced; the limit is ${this.maxFrameBytes}`,
        );
        throw this.broken;
      }
      if (this.buffered < 4 + length) break;
      const whole = this.take(4 + length);
      const kind = whole[4];
      const payload = whole.subarray(HEADER_BYTES);
      if (kind === KIND_BYTES) {
        frames.push({ kind: "bytes", bytes: payload });
      } else if (kind === KIND_JSON) {
        try {
          frames.push({ kind: "json", value: JSON.parse(payload.toString("utf8")) });
        } catch {
          this.broken = new FrameError("a frame's JSON did not parse");
          throw this.broken;
        }
      } else {
        this.broken = new FrameError(`a frame of unknown kind ${String(kind)} arrived`);
        throw this.broken;
      }
    }
    return frames;
  }

  private peek(bytes: number): Buffer {
    const first = this.chunks[0] as Buffer;
    if (first.byteLength >= bytes) return first;
    this.chunks = [Buffer.concat(this.chunks)];
    return this.chunks[0] as Buffer;
  }

  private take(bytes: number): Buffer {
    const joined = this.chunks.length === 1 ? (this.chunks[0] as Buffer) : Buffer.concat(this.chunks);
    const taken = joined.subarray(0, bytes);
    const rest = joined.subarray(bytes);
    this.chunks = rest.byteLength > 0 ? [rest] : [];
    this.buffered = rest.byteLength;
    return taken;
  }
}
