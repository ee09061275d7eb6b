import type { Socket } from "node:net";
import {
  encodeCheckedHostFrame,
  FrameFormatError,
  GuestFrameDecoder,
  type GuestToHost,
  type HostToGuest,
  PROTOCOL_VERSION,
} from "../guest-agent/protocol.js";
import { connectQemuSocket } from "./qemu-socket.js";

/** Receives the frames of one operation (an exec, a file transfer), by id. */
export type FrameHandler = (frame: GuestToHost) => void;

/**
 * The host end of the guest agent's virtio-serial port: QEMU's Unix socket. Frames are routed by
 * id to the operation that owns them; `ready` resolves `whenReady`. When the channel breaks
 * (QEMU exited, a frame was malformed), every open operation hears it through `onBroken`.
 */
export class AgentChannel {
  private readonly handlers = new Map<number, FrameHandler>();
  private readonly decoder = new GuestFrameDecoder();
  private nextId = 1;
  private broken: Error | undefined;
  private readonly brokenListeners = new Set<(error: Error) => void>();
  private resolveReady!: (version: number) => void;
  private holds = 0;
  readonly whenReady: Promise<number>;

  private constructor(private readonly socket: Socket) {
    this.whenReady = new Promise((resolve) => {
      this.resolveReady = resolve;
    });
    socket.on("data", (chunk: Buffer) => this.receive(chunk));
    socket.on("error", (error) => this.break(error));
    socket.on("close", () => this.break(new Error("the guest agent channel closed")));
  }

  /** Connects to QEMU's socket, which appears shortly after QEMU starts. */
  static connect(path: string, isAlive: () => boolean, timeoutMs: number): Promise<AgentChannel> {
    return connectQemuSocket(path, isAlive, timeoutMs, (socket) => {
      socket.setNoDelay?.(true);
      return new AgentChannel(socket);
    });
  }

  /** The id the next request gets: a snapshot records it, so a restore never reuses a live one. */
  get nextRequestId(): number {
    return this.nextId;
  }

  /** On a restored machine: go on from the snapshot's ids (see `nextRequestId`). */
  continueIdsFrom(id: number): void {
    this.nextId = id;
  }

  /**
   * The bytes of a guest frame only partly received: when a snapshot stops the guest in the
   * middle of sending one, the rest reaches the restored machine's host, which must start from
   * this prefix (`resumeFrame`) to stay in step.
   */
  get partialFrame(): Uint8Array {
    return this.decoder.partial;
  }

  resumeFrame(prefix: Uint8Array): void {
    if (prefix.byteLength > 0) this.receive(Buffer.from(prefix));
  }

  allocateId(): number {
    const id = this.nextId;
    this.nextId = this.nextId >= 0x7fffffff ? 1 : this.nextId + 1;
    return id;
  }

  /** Routes frames with `id` to `handler` until `release(id)`. */
  listen(id: number, handler: FrameHandler): void {
    this.handlers.set(id, handler);
  }

  isListening(id: number): boolean {
    return this.handlers.has(id);
  }

  release(id: number): void {
    this.handlers.delete(id);
  }

  /** Sends a frame; throws FrameTooLargeError (nothing sent) for one over MAX_FRAME_BYTES. */
  send(message: HostToGuest): void {
    if (this.broken) throw this.broken;
    this.socket.write(encodeCheckedHostFrame(message));
  }

  /**
   * Stops reading from the guest until the returned release is called (by every holder): a
   * consumer that cannot keep up with a command's output holds the channel, the socket's buffer
   * fills, QEMU stops taking the guest's writes and the agent waits. Memory stays bounded
   * however fast the guest prints. Output of other operations waits too: there is one channel.
   */
  hold(): () => void {
    let released = false;
    if (this.holds++ === 0) this.socket.pause();
    return () => {
      if (released) return;
      released = true;
      if (--this.holds === 0) this.socket.resume();
    };
  }

  /** Calls `listener` once if the channel breaks (now, if it already has); returns an unsubscribe. */
  onBroken(listener: (error: Error) => void): () => void {
    if (this.broken) {
      listener(this.broken);
      return () => {};
    }
    this.brokenListeners.add(listener);
    return () => this.brokenListeners.delete(listener);
  }

  close(): void {
    this.socket.destroy();
  }

  private receive(chunk: Buffer): void {
    let frames: GuestToHost[];
    try {
      frames = this.decoder.push(chunk);
    } catch (error) {
      this.break(error instanceof FrameFormatError ? error : new Error(String(error)));
      this.socket.destroy();
      return;
    }
    for (const frame of frames) {
      if (frame.type === "ready") {
        if (frame.version !== PROTOCOL_VERSION) {
          this.break(
            new Error(
              `the guest agent speaks protocol ${frame.version}, the host ${PROTOCOL_VERSION}; rebuild the agent`,
            ),
          );
          return;
        }
        this.resolveReady(frame.version);
        continue;
      }
      this.handlers.get(frame.id)?.(frame);
    }
  }

  private break(error: Error): void {
    if (this.broken) return;
    this.broken = error;
    for (const listener of this.brokenListeners) listener(error);
    this.brokenListeners.clear();
  }
}
