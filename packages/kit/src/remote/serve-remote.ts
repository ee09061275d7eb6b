import type { Readable, Writable } from "node:stream";
import { bytesFrameParts, encodeJsonFrame, FrameReader } from "./frame-codec.js";
import { asHostToRemote, DEFAULT_MAX_JSON_FRAME_BYTES, type RemoteToHost } from "./remote-protocol.js";

/** A method the sandbox serves: its arguments as sent, and the bytes attached, if any. */
export type RemoteHandler = (args: unknown[], attachment: Uint8Array | undefined) => unknown;

export interface ServeRemoteOptions {
  input: Readable;
  output: Writable;
  handlers: Record<string, RemoteHandler>;
  /** The host's frames: JSON up to this many bytes (default 64 MiB)... */
  maxJsonBytes?: number;
  /** ...and attached bytes up to this many (default none). */
  maxBytesBytes?: number;
  /** The host's end closed or broke the format: the process should end. */
  onClose(reason: string): void;
}

export interface RemoteServer {
  /** Tells the host something happened (a tool call, a snapshot, readiness). */
  emit(name: string, payload?: unknown, attachment?: Uint8Array): void;
}

/**
 * The sandbox's side of the channel: runs the host's calls on `handlers` (in arrival order,
 * each awaited before its reply) and sends events. Runs inside the sandboxed process.
 */
export function serveRemote(options: ServeRemoteOptions): RemoteServer {
  const reader = new FrameReader({
    maxJsonBytes: options.maxJsonBytes ?? DEFAULT_MAX_JSON_FRAME_BYTES,
    maxBytesBytes: options.maxBytesBytes ?? 0,
  });
  const send = (message: RemoteToHost, attachment?: Uint8Array) => {
    if (attachment) for (const part of bytesFrameParts(attachment)) options.output.write(part);
    options.output.write(encodeJsonFrame(message));
  };
  let attachment: Uint8Array | undefined;

  const handle = (message: ReturnType<typeof asHostToRemote>, bytes: Uint8Array | undefined) => {
    if (!message) return options.onClose("the host sent a message this sandbox does not understand");
    const handler = Object.hasOwn(options.handlers, message.method)
      ? options.handlers[message.method]
      : undefined;
    const run = () => {
      if (!handler) throw new Error(`no method "${message.method}" is served here`);
      return handler(message.args, bytes);
    };
    if (message.t === "notify") {
      try {
        run();
      } catch {
        // A notification has no one to answer; the method reports its own failures.
      }
      return;
    }
    const { id } = message;
    const reply = (value: unknown) =>
      send({ t: "reply", id, ok: true, ...(value === undefined ? {} : { value }) });
    const fail = (error: unknown) => {
      const { name, message: text } = error instanceof Error ? error : new Error(String(error));
      send({ t: "reply", id, ok: false, error: { name, message: text } });
    };
    try {
      const value = run();
      if (value instanceof Promise) value.then(reply, fail);
      else reply(value);
    } catch (error) {
      fail(error);
    }
  };

  options.input.on("data", (chunk: Buffer) => {
    let frames: ReturnType<FrameReader["push"]>;
    try {
      frames = reader.push(chunk);
    } catch (error) {
      options.onClose((error as Error).message);
      return;
    }
    for (const frame of frames) {
      if (frame.kind === "bytes") {
        attachment = frame.bytes;
        continue;
      }
      const message = asHostToRemote(frame.value);
      const bytes = message?.attached ? attachment : undefined;
      attachment = undefined;
      handle(message, bytes);
    }
  });
  options.input.on("end", () => options.onClose("the host closed the channel"));
  options.input.on("error", (error) => options.onClose(error.message));

  return {
    emit(name, payload, bytes) {
      send(
        {
          t: "event",
          name,
          ...(payload === undefined ? {} : { payload }),
          ...(bytes ? { attached: true } : {}),
        },
        bytes,
      );
    },
  };
}
