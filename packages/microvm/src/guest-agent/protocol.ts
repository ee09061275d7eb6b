/**
 * Frames between the host and the guest agent (agent.c), over one virtio-serial port.
 *
 * This is the only TypeScript module that knows the wire layout; agent.c mirrors it, so change
 * both together and bump PROTOCOL_VERSION (the guest announces its version in `ready`, and the
 * host refuses a guest that speaks another).
 *
 * A frame is `u32 length | u8 type | u32 id | body`, where length counts everything after
 * itself and integers are little-endian. `id` ties the frames of one operation together (an
 * exec's output and exit, a file's chunks); the host picks it. Strings are `u32 length | UTF-8`,
 * string lists `u32 count | string...`. Why binary and not JSON: the guest side is C with no
 * library, and output chunks are bytes that JSON would have to escape.
 */

export const PROTOCOL_VERSION = 3;

/** The virtio-serial port name the guest agent looks for. */
export const AGENT_PORT_NAME = "atrium.agent";

/** Largest frame either side accepts (a 1 MiB body plus headers); agent.c's MAX_FRAME. */
export const MAX_FRAME_BYTES = 1024 * 1024 + 64;

/** Bytes of file or stdin data per frame. */
export const DATA_CHUNK_BYTES = 64 * 1024;

export const FRAME_TYPE = {
  exec: 1,
  stdin: 2,
  stdinClose: 3,
  signal: 4,
  writeOpen: 5,
  writeData: 6,
  writeClose: 7,
  read: 8,
  powerOff: 9,
  resumed: 10,
  ready: 64,
  stdout: 65,
  stderr: 66,
  exit: 67,
  error: 68,
  ok: 69,
  fileData: 70,
  fileEnd: 71,
} as const;

export type HostToGuest =
  | {
      type: "exec";
      id: number;
      argv: string[];
      env: string[];
      cwd: string;
      /** 0 = no limit; the guest kills the command's cgroup and process group and answers 124. */
      timeoutMs: number;
      hasStdin: boolean;
    }
  | { type: "stdin"; id: number; data: Uint8Array }
  | { type: "stdin-close"; id: number }
  | { type: "signal"; id: number; signal: number }
  | { type: "write-open"; id: number; path: string; mode: number }
  | { type: "write-data"; id: number; data: Uint8Array }
  /** Answered by `ok` or `error` (the first failure of open or any write). */
  | { type: "write-close"; id: number }
  /**
   * Answered by `file-data`... then `file-end`, or `error`: also when the file is not a regular
   * file, or holds more than `maxBytes` (the agent stops there, so no bytes the host would drop
   * are sent).
   */
  | { type: "read"; id: number; path: string; maxBytes: number }
  | { type: "power-off"; id: number }
  /**
   * After a restore or fork: the host's wall clock (ms since the epoch) and up to 512 bytes of
   * fresh entropy, which the agent mixes into the kernel's pool before forcing a CRNG reseed.
   * Answered by `ok` or `error`.
   */
  | { type: "resumed"; id: number; timeMs: number; entropy: Uint8Array };

export type GuestToHost =
  | { type: "ready"; id: number; version: number }
  | { type: "stdout"; id: number; data: Uint8Array }
  | { type: "stderr"; id: number; data: Uint8Array }
  /** `code` is 124 after a timeout, 128 + signal when a signal ended the command. */
  | { type: "exit"; id: number; code: number; signal: number; timedOut: boolean }
  | { type: "error"; id: number; errno: number; message: string }
  | { type: "ok"; id: number }
  | { type: "file-data"; id: number; data: Uint8Array }
  | { type: "file-end"; id: number };

const utf8 = new TextEncoder();
const fromUtf8 = new TextDecoder();

class FrameWriter {
  private parts: Uint8Array[] = [];
  private length = 0;

  u32(value: number): this {
    const bytes = new Uint8Array(4);
    new DataView(bytes.buffer).setUint32(0, value >>> 0, true);
    return this.bytes(bytes);
  }

  bytes(value: Uint8Array): this {
    this.parts.push(value);
    this.length += value.byteLength;
    return this;
  }

  str(value: string): this {
    const bytes = utf8.encode(value);
    return this.u32(bytes.byteLength).bytes(bytes);
  }

  strList(values: readonly string[]): this {
    this.u32(values.length);
    for (const value of values) this.str(value);
    return this;
  }

  finish(type: number, id: number): Uint8Array {
    const frame = new Uint8Array(9 + this.length);
    const view = new DataView(frame.buffer);
    view.setUint32(0, 5 + this.length, true);
    frame[4] = type;
    view.setUint32(5, id >>> 0, true);
    let offset = 9;
    for (const part of this.parts) {
      frame.set(part, offset);
      offset += part.byteLength;
    }
    return frame;
  }
}

/**
 * Thrown before sending a frame larger than the agent accepts (MAX_FRAME_BYTES): the agent
 * treats such a length as a broken channel and powers the guest off, so it must never be sent.
 */
export class FrameTooLargeError extends Error {
  constructor(
    readonly what: string,
    readonly bytes: number,
  ) {
    super(`${what} is ${bytes} bytes, over the guest agent's frame limit of ${MAX_FRAME_BYTES} bytes`);
  }
}

/** `encodeHostFrame`, refusing a frame over MAX_FRAME_BYTES before anything is sent. */
export function encodeCheckedHostFrame(message: HostToGuest): Uint8Array {
  const frame = encodeHostFrame(message);
  if (frame.byteLength - 4 > MAX_FRAME_BYTES)
    throw new FrameTooLargeError(`${message.type} request`, frame.byteLength - 4);
  return frame;
}

export function encodeHostFrame(message: HostToGuest): Uint8Array {
  const w = new FrameWriter();
  switch (message.type) {
    case "exec":
      w.u32(message.timeoutMs)
        .u32(message.hasStdin ? 1 : 0)
        .strList(message.argv)
        .strList(message.env)
        .str(message.cwd);
      return w.finish(FRAME_TYPE.exec, message.id);
    case "stdin":
      return w.bytes(message.data).finish(FRAME_TYPE.stdin, message.id);
    case "stdin-close":
      return w.finish(FRAME_TYPE.stdinClose, message.id);
    case "signal":
      return w.u32(message.signal).finish(FRAME_TYPE.signal, message.id);
    case "write-open":
      return w.u32(message.mode).str(message.path).finish(FRAME_TYPE.writeOpen, message.id);
    case "write-data":
      return w.bytes(message.data).finish(FRAME_TYPE.writeData, message.id);
    case "write-close":
      return w.finish(FRAME_TYPE.writeClose, message.id);
    case "read":
      return w
        .u32(Math.min(message.maxBytes, 0xffffffff))
        .str(message.path)
        .finish(FRAME_TYPE.read, message.id);
    case "power-off":
      return w.finish(FRAME_TYPE.powerOff, message.id);
    case "resumed": {
      const time = new Uint8Array(8);
      new DataView(time.buffer).setBigUint64(0, BigInt(Math.floor(message.timeMs)), true);
      return w.bytes(time).bytes(message.entropy).finish(FRAME_TYPE.resumed, message.id);
    }
  }
}

/** Thrown for bytes that are not a frame of this protocol: the channel cannot be trusted after it. */
export class FrameFormatError extends Error {}

export function decodeGuestFrame(type: number, id: number, body: Uint8Array): GuestToHost {
  const view = new DataView(body.buffer, body.byteOffset, body.byteLength);
  const need = (bytes: number) => {
    if (body.byteLength < bytes)
      throw new FrameFormatError(`frame type ${type}: body of ${body.byteLength} bytes is too short`);
  };
  switch (type) {
    case FRAME_TYPE.ready:
      need(4);
      return { type: "ready", id, version: view.getUint32(0, true) };
    case FRAME_TYPE.stdout:
      return { type: "stdout", id, data: body };
    case FRAME_TYPE.stderr:
      return { type: "stderr", id, data: body };
    case FRAME_TYPE.exit:
      need(9);
      return {
        type: "exit",
        id,
        code: view.getInt32(0, true),
        signal: view.getUint32(4, true),
        timedOut: body[8] === 1,
      };
    case FRAME_TYPE.error: {
      need(8);
      const length = view.getUint32(4, true);
      need(8 + length);
      return {
        type: "error",
        id,
        errno: view.getInt32(0, true),
        message: fromUtf8.decode(body.subarray(8, 8 + length)),
      };
    }
    case FRAME_TYPE.ok:
      return { type: "ok", id };
    case FRAME_TYPE.fileData:
      return { type: "file-data", id, data: body };
    case FRAME_TYPE.fileEnd:
      return { type: "file-end", id };
    default:
      throw new FrameFormatError(`unknown frame type ${type} from the guest`);
  }
}

/**
 * Cuts a byte stream into guest frames. Bytes arrive in arbitrary pieces; `push` returns every
 * frame completed so far and keeps the rest.
 */
export class GuestFrameDecoder {
  private buffer: Uint8Array = new Uint8Array(0);

  /** The start of a frame not yet complete (a snapshot carries it to the restored host). */
  get partial(): Uint8Array {
    return this.buffer.slice();
  }

  push(chunk: Uint8Array): GuestToHost[] {
    this.buffer = this.buffer.byteLength === 0 ? chunk : concat(this.buffer, chunk);
    const frames: GuestToHost[] = [];
    let offset = 0;
    while (this.buffer.byteLength - offset >= 4) {
      const view = new DataView(this.buffer.buffer, this.buffer.byteOffset + offset);
      const length = view.getUint32(0, true);
      if (length < 5 || length > MAX_FRAME_BYTES) {
        throw new FrameFormatError(`frame length ${length} is outside 5..${MAX_FRAME_BYTES}`);
      }
      if (this.buffer.byteLength - offset - 4 < length) break;
      const type = this.buffer[offset + 4] as number;
      const id = view.getUint32(5, true);
      // A copy: the body outlives this buffer (callers keep output chunks).
      const body = this.buffer.slice(offset + 9, offset + 4 + length);
      frames.push(decodeGuestFrame(type, id, body));
      offset += 4 + length;
    }
    this.buffer = this.buffer.subarray(offset);
    return frames;
  }
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const joined = new Uint8Array(a.byteLength + b.byteLength);
  joined.set(a);
  joined.set(b, a.byteLength);
  return joined;
}
