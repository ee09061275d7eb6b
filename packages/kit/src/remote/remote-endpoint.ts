import type { Readable, Writable } from "node:stream";
import { bytesFrameParts, encodeJsonFrame, FrameReader } from "./frame-codec.js";
import {
  asRemoteToHost,
  DEFAULT_MAX_JSON_FRAME_BYTES,
  type HostToRemote,
  type RemoteErrorValue,
} from "./remote-protocol.js";

/** A call the sandbox answered with an error; the channel is still sound. */
export class RemoteCallError extends Error {
  constructor(readonly remote: RemoteErrorValue) {
    super(remote.message);
    this.name = remote.name;
  }
}

/** The sandbox's process ended, or its channel broke: no call will be answered any more. */
export class RemoteClosedError extends Error {
  override name = "RemoteClosedError";
}

export interface RemoteEndpointOptions {
  /** The sandbox's input (its stdin) and output (its stdout). */
  input: Writable;
  output: Readable;
  /** The sandbox's frames: JSON up to this many bytes (default 64 MiB)... */
  maxJsonBytes?: number;
  /** ...and attached bytes up to this many until `refuseBytesFrames` (default none). */
  maxBytesBytes?: number;
  onEvent(name: string, payload: unknown, attachment: Uint8Array | undefined): void;
}

export interface CallOptions {
  /** Bytes sent with the call (a snapshot to restore, say). */
  attachment?: Uint8Array;
  /** A sandbox that has not answered by then is given up on: the channel closes. */
  timeoutMs?: number;
}

/**
 * The host's side of the channel to an object served inside a sandboxed process
 * (serve-remote.ts): calls with replies, notifications, and the sandbox's events. Everything
 * that arrives is checked before use: the sandbox may be running code that escaped its
 * interpreter, so a malformed or oversized message closes the channel instead of reaching the
 * host's logic.
 */
export class RemoteEndpoint {
  private readonly pending = new Map<number, { resolve(value: unknown): void; reject(error: Error): void }>();
  private nextId = 1;
  private closedWith: RemoteClosedError | undefined;
  private readonly closeListeners: ((error: RemoteClosedError) => void)[] = [];

  private readonly reader: FrameReader;

  constructor(private readonly options: RemoteEndpointOptions) {
    const reader = new FrameReader({
      maxJsonBytes: options.maxJsonBytes ?? DEFAULT_MAX_JSON_FRAME_BYTES,
      maxBytesBytes: options.maxBytesBytes ?? 0,
    });
    this.reader = reader;
    let attachment: Uint8Array | undefined;
    options.output.on("data", (chunk: Buffer) => {
      if (this.closedWith) return;
      let frames: ReturnType<FrameReader["push"]>;
      try {
        frames = reader.push(chunk);
      } catch (error) {
        this.close(`its channel broke: ${(error as Error).message}`);
        return;
      }
      for (const frame of frames) {
        if (frame.kind === "bytes") {
          if (attachment) return this.close("it sent bytes that no message claimed");
          attachment = frame.bytes;
          continue;
        }
        const message = asRemoteToHost(frame.value);
        const claims = message !== undefined && "attached" in message && message.attached === true;
        if (claims !== (attachment !== undefined)) {
          return this.close(
            claims ? "it sent a message whose bytes are missing" : "it sent bytes that no message claimed",
          );
        }
        const bytes = attachment;
        attachment = undefined;
        if (!message) {
          this.close("it sent a message that is not part of the protocol");
          return;
        }
        if (message.t === "event") {
          options.onEvent(message.name, message.payload, bytes);
          if (this.closedWith) return;
          continue;
        }
        const waiter = this.pending.get(message.id);
        // A reply to nothing: a sandbox that answers what was never asked is not following the protocol.
        if (!waiter) return this.close(`it answered call ${message.id}, which is not waiting`);
        this.pending.delete(message.id);
        if (message.ok) waiter.resolve(message.value);
        else waiter.reject(new RemoteCallError(message.error));
      }
    });
    options.output.on("error", (error) => this.close(`its output failed: ${error.message}`));
    options.output.on("end", () => this.close("its output ended"));
    // A sandbox that died leaves a broken pipe behind; its end is reported by the process's exit.
    options.input.on("error", () => undefined);
  }

  get closed(): RemoteClosedError | undefined {
    return this.closedWith;
  }

  get pendingCalls(): number {
    return this.pending.size;
  }

  call(method: string, args: unknown[] = [], options: CallOptions = {}): Promise<unknown> {
    if (this.closedWith) return Promise.reject(this.closedWith);
    const id = this.nextId++;
    const { attachment, timeoutMs } = options;
    return new Promise((resolve, reject) => {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const settle = () => {
        if (timer) clearTimeout(timer);
      };
      this.pending.set(id, {
        resolve: (value) => {
          settle();
          resolve(value);
        },
        reject: (error) => {
          settle();
          reject(error);
        },
      });
      if (timeoutMs !== undefined) {
        timer = setTimeout(() => this.close(`it did not answer ${method} within ${timeoutMs} ms`), timeoutMs);
      }
      this.send({ t: "call", id, method, args, ...(attachment ? { attached: true } : {}) }, attachment);
    });
  }

  /** From now on, bytes from the sandbox close the channel (they are only expected while it boots). */
  refuseBytesFrames(): void {
    this.reader.refuseBytes();
  }

  notify(method: string, args: unknown[] = []): void {
    if (!this.closedWith) this.send({ t: "notify", method, args });
  }

  onClose(listener: (error: RemoteClosedError) => void): void {
    if (this.closedWith) listener(this.closedWith);
    else this.closeListeners.push(listener);
  }

  /** Fails every pending call; later calls fail at once. Idempotent. */
  close(reason: string): void {
    if (this.closedWith) return;
    this.closedWith = new RemoteClosedError(reason);
    for (const waiter of this.pending.values()) waiter.reject(this.closedWith);
    this.pending.clear();
    for (const listener of this.closeListeners.splice(0)) listener(this.closedWith);
  }

  private send(message: HostToRemote, attachment?: Uint8Array): void {
    if (attachment) for (const part of bytesFrameParts(attachment)) this.options.input.write(part);
    this.options.input.write(encodeJsonFrame(message));
  }
}
