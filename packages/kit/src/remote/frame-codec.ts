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

/**
 * A bytes frame as its header and the bytes themselves, to write one after the other: joining
 * them would copy a snapshot of tens of MB on the writer's thread.
 */
export function bytesFrameParts(bytes: Uint8Array): [Buffer, Uint8Array] {
  const header = Buffer.allocUnsafe(HEADER_BYTES);
  header.writeUInt32BE(bytes.byteLength + 1, 0);
  header[4] = KIND_BYTES;
  return [header, bytes];
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
export interface FrameLimits {
  /** The largest JSON frame accepted, in bytes. */
  maxJsonBytes: number;
  /** The largest bytes frame accepted; 0 refuses them (`refuseBytes` sets it later). */
  maxBytesBytes: number;
  /**
   * How deep JSON may nest. The protocol's messages are a few levels deep; a frame of nothing
   * but brackets would cost its reader dozens of times its size in heap.
   */
  maxJsonDepth?: number;
}

const DEFAULT_MAX_JSON_DEPTH = 64;

export class FrameReader {
  private chunks: Buffer[] = [];
  private buffered = 0;
  private broken: FrameError | undefined;
  private maxBytesBytes: number;

  constructor(private readonly limits: FrameLimits) {
    this.maxBytesBytes = limits.maxBytesBytes;
  }

  /** From now on a bytes frame breaks the stream (e.g. once a sandbox has booted). */
  refuseBytes(): void {
    this.maxBytesBytes = 0;
  }

  push(chunk: Buffer): Frame[] {
    if (this.broken) throw this.broken;
    this.chunks.push(chunk);
    this.buffered += chunk.byteLength;
    const frames: Frame[] = [];
    for (;;) {
      if (this.buffered < HEADER_BYTES) break;
      const head = this.peek(HEADER_BYTES);
      const length = head.readUInt32BE(0);
      const kind = head[4];
      if (kind !== KIND_BYTES && kind !== KIND_JSON) {
        this.broken = new FrameError(`a frame of unknown kind ${String(kind)} arrived`);
        throw this.broken;
      }
      const limit = kind === KIND_BYTES ? this.maxBytesBytes : this.limits.maxJsonBytes;
      if (length < 1 || length > limit + 1) {
        const what = kind === KIND_BYTES ? "bytes frame" : "frame";
        const allowed =
          limit === 0 && kind === KIND_BYTES ? "none are accepted now" : `the limit is ${limit}`;
        this.broken = new FrameError(`a ${what} of ${length - 1} bytes was announced; ${allowed}`);
        throw this.broken;
      }
      if (this.buffered < 4 + length) break;
      const whole = this.take(4 + length);
      const payload = whole.subarray(HEADER_BYTES);
      if (kind === KIND_BYTES) {
        frames.push({ kind: "bytes", bytes: payload });
      } else {
        const maxDepth = this.limits.maxJsonDepth ?? DEFAULT_MAX_JSON_DEPTH;
        if (nestsDeeperThan(payload, maxDepth)) {
          this.broken = new FrameError(`a frame's JSON nests deeper than ${maxDepth} levels`);
          throw this.broken;
        }
        try {
          frames.push({ kind: "json", value: JSON.parse(payload.toString("utf8")) });
        } catch {
          this.broken = new FrameError("a frame's JSON did not parse");
          throw this.broken;
        }
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

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACKET = 0x5b;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACKET = 0x5d;
const CLOSE_BRACE = 0x7d;

/** Whether JSON text nests arrays and objects deeper than `max`, brackets in strings aside. */
function nestsDeeperThan(json: Uint8Array, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < json.length; i++) {
    const byte = json[i];
    if (inString) {
      if (byte === BACKSLASH) i++;
      else if (byte === QUOTE) inString = false;
    } else if (byte === QUOTE) {
      inString = true;
    } else if (byte === OPEN_BRACKET || byte === OPEN_BRACE) {
      if (++depth > max) return true;
    } else if (byte === CLOSE_BRACKET || byte === CLOSE_BRACE) {
      depth--;
    }
  }
  return false;
}
