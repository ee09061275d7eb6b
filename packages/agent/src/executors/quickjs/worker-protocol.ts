import { type MessagePort, receiveMessageOnPort } from "node:worker_threads";
import type { ExecutionError } from "@atrium/spec";
import type { QuickJsLimits } from "../../limits.js";
import type { JsTape } from "./run-tape.js";

/**
 * Messages between `QuickJsExecutor` (main thread) and its sandbox worker, and the shared-memory
 * channel that carries them. QuickJS runs in a worker thread so that synchronous guest code (an
 * infinite loop) never blocks the host's event loop: aborts, timers and other agents keep
 * running, and the host can always stop the guest through a shared flag the interrupt handler
 * reads, or by terminating the worker.
 *
 * This is the only module both sides of the thread boundary import, so the layout of the shared
 * memory and the code that reads and writes it live here, once: a second copy on either side
 * could drift from this one and corrupt messages silently.
 */

export type ToolOutcome =
  | { ok: true; json: string | undefined }
  | { ok: false; name: string; message: string };

export type HostToWorker =
  | { type: "init"; id: number; limits: QuickJsLimits }
  /** `tape` only for a step that records its non-deterministic sources (run-tape.ts). */
  | { type: "run"; id: number; runId: number; code: string; timeoutMs: number; tape?: StepTapeRequest }
  | { type: "set-tools"; id: number; names: string[] }
  | { type: "set-variables"; id: number; entries: [name: string, json: string | undefined][] }
  | { type: "reset"; id: number }
  | { type: "memory"; id: number }
  /** Drop every state and get ready to serve a new executor. */
  | { type: "recycle"; id: number }
  | { type: "tool-result"; runId: number; callId: string; outcome: ToolOutcome }
  /** A tool call of the run waits for an approval (`held`), or no longer does: stop or restart its deadline. */
  | { type: "clock"; runId: number; held: boolean };

/** A recorded step: its values are reported back, after those of `replay` are given first. */
export interface StepTapeRequest {
  replay?: JsTape;
}

/** What the host sends without waiting for a reply: messages for the run under way. */
export type RunNotice = Extract<HostToWorker, { type: "tool-result" | "clock" }>;

/** Memory of a sandbox: what QuickJS has allocated, and the wasm instance's linear memory. */
export interface SandboxMemory {
  usedBytes: number;
  wasmBytes: number;
}

/** What a run produced, before the host adds images and maps host stops to exceptions. */
export interface SessionRunResult {
  outputJson: string | undefined;
  isFinalAnswer: boolean;
  logs: string;
  error?: ExecutionError;
  /** The host stopped the run (abort, close, a fatal tool error): the host knows why. */
  stoppedByHost: boolean;
  durationMs: number;
  /** What the step's sources gave; only when the run request carried `tape`. */
  tape?: JsTape;
}

export type WorkerToHost =
  | { type: "reply"; id: number; ok: true; value?: SessionRunResult | SandboxMemory }
  | { type: "reply"; id: number; ok: false; error: { name: string; message: string } }
  | { type: "tool-call"; runId: number; callId: string; name: string; json: string };

/** The worker's first message, on its `parentPort`: it listens on the channel from now on. */
export const WORKER_READY = "ready";

// ── the shared-memory channel ───────────────────────────────────────────────────────────────────
//
// Why not `postMessage`: a message-port hop wakes the other thread's event loop and runs its
// message machinery; a bare round trip took 0.010–0.015 ms here against 0.006–0.009 ms through
// shared memory, and a step makes two hops, a tool step four. Each direction is one slot in a
// SharedArrayBuffer: the writer fills it, flips its state word to FULL, and rings the
// direction's bell (adds 1, `Atomics.notify`).
// The reader takes the message and flips the state back to EMPTY (notifying it: a writer may be
// waiting for room). A reader reads the bell before it looks at the slot and waits only while the
// bell still has that value, so a message (or a stop, which rings the worker's bell too) that
// comes between the look and the wait is never slept through. The worker blocks in
// `Atomics.wait` while it has nothing else to do (idle, or waiting for a tool result), after
// polling the bell for up to SPIN_MS; the host only ever waits with `Atomics.waitAsync`, after
// looking at the bell once per event-loop turn while a reply is due, so its event loop never
// blocks. The polling is there because waking a sleeping thread is the dominant cost of a
// crossing on a virtual machine (tens of microseconds on each side, more than a trivial step). A message too big for
// its slot travels on a MessagePort and the slot says so (length -1); the reader takes it with
// `receiveMessageOnPort`, so order is the slots' order. Messages are JSON: a field that is
// `undefined` is left out, and `undefined` in an array arrives as `null`.

/** Int32 index of the stop flag: non-zero = the host asks the current run to stop. */
export const STOP_FLAG = 0;
const TO_WORKER = { state: 1, length: 2, bell: 3, slot: 0 } as const;
const TO_HOST = { state: 4, length: 5, bell: 6, slot: 1 } as const;
/** Bytes before the first slot: the control words above, with room to grow. */
const CONTROL_BYTES = 64;
/**
 * Bytes of one slot (UTF-8 JSON). Steps and tool results of everyday size fit; bigger ones take
 * the MessagePort, which costs a port hop and a copy, not a failure.
 */
export const SLOT_BYTES = 64 * 1024;

/** How long a reader polls before it sleeps (see `spinFor`). */
export const SPIN_MS = 1;

const SLOT_EMPTY = 0;
const SLOT_FULL = 1;
/** A slot length meaning "the message is waiting on the MessagePort". */
const ON_PORT = -1;

/** Memory of one channel: the control words and both slots. */
export function newChannelMemory(): SharedArrayBuffer {
  return new SharedArrayBuffer(CONTROL_BYTES + 2 * SLOT_BYTES);
}

/** The channel's control words (stop flag, slot states), to wait on and to set the stop flag. */
export function channelControl(memory: SharedArrayBuffer): Int32Array {
  return new Int32Array(memory, 0, CONTROL_BYTES / 4);
}

/** Where one direction's words and bytes are. */
type Direction = typeof TO_WORKER | typeof TO_HOST;

/** One direction of the channel: a slot that holds at most one message, and its bell. */
export class ChannelSlot<Message> {
  private readonly control: Int32Array;
  private readonly bytes: Uint8Array;
  private readonly encoder = new TextEncoder();
  private readonly decoder = new TextDecoder();

  private constructor(
    memory: SharedArrayBuffer,
    private readonly at: Direction,
    /** Carries messages too big for the slot; the other side holds the other end. */
    private readonly port: MessagePort,
  ) {
    this.control = channelControl(memory);
    this.bytes = new Uint8Array(memory, CONTROL_BYTES + at.slot * SLOT_BYTES, SLOT_BYTES);
  }

  static toWorker(memory: SharedArrayBuffer, port: MessagePort): ChannelSlot<HostToWorker> {
    return new ChannelSlot(memory, TO_WORKER, port);
  }

  static toHost(memory: SharedArrayBuffer, port: MessagePort): ChannelSlot<WorkerToHost> {
    return new ChannelSlot(memory, TO_HOST, port);
  }

  /** Writes `message` and rings the bell; false (nothing written) while the slot is full. */
  tryPut(message: Message): boolean {
    if (Atomics.load(this.control, this.at.state) !== SLOT_EMPTY) return false;
    const json = JSON.stringify(message);
    // A UTF-8 encoding is never shorter than the string's UTF-16 length: skip the doomed copy.
    const { read, written } =
      json.length <= SLOT_BYTES ? this.encoder.encodeInto(json, this.bytes) : { read: 0, written: 0 };
    if (read === json.length) {
      Atomics.store(this.control, this.at.length, written);
    } else {
      this.port.postMessage(json);
      Atomics.store(this.control, this.at.length, ON_PORT);
    }
    Atomics.store(this.control, this.at.state, SLOT_FULL);
    this.ring();
    return true;
  }

  /** Takes the waiting message and wakes a writer waiting for room; undefined when empty. */
  take(): Message | undefined {
    if (Atomics.load(this.control, this.at.state) !== SLOT_FULL) return undefined;
    const length = Atomics.load(this.control, this.at.length);
    let json: string;
    if (length === ON_PORT) {
      const received = receiveMessageOnPort(this.port);
      if (!received) throw new Error("sandbox channel: a message announced on the port is missing");
      json = received.message as string;
    } else {
      json = this.decoder.decode(this.bytes.subarray(0, length));
    }
    Atomics.store(this.control, this.at.state, SLOT_EMPTY);
    Atomics.notify(this.control, this.at.state);
    return JSON.parse(json) as Message;
  }

  /** The bell's count, read before `take()`; wait with `waitForBell(count)` if nothing was there. */
  bell(): number {
    return Atomics.load(this.control, this.at.bell);
  }

  /** Wakes the reader without a message (a stop). */
  ring(): void {
    Atomics.add(this.control, this.at.bell, 1);
    Atomics.notify(this.control, this.at.bell);
  }

  /** Wakes every wait on this direction, so waiters see that their side is going away. */
  wakeAll(): void {
    this.ring();
    Atomics.notify(this.control, this.at.state);
  }

  /** Blocks (worker only) until the bell rings past `count`, or `timeoutMs` passes. */
  waitForBell(count: number, timeoutMs: number): void {
    if (this.spinFor(count, Math.min(timeoutMs, SPIN_MS))) return;
    Atomics.wait(this.control, this.at.bell, count, timeoutMs);
  }

  /**
   * Polls the bell for up to `ms`; true once it rang past `count`. A thread that slept in
   * `Atomics.wait` takes tens of microseconds to be woken on a virtual machine, longer than a
   * whole trivial step, so a short poll first catches the answer that is about to come.
   */
  spinFor(count: number, ms: number): boolean {
    const until = performance.now() + ms;
    do {
      if (Atomics.load(this.control, this.at.bell) !== count) return true;
    } while (performance.now() < until);
    return false;
  }

  /** Resolves once the bell rang past `count` (host: never blocks). */
  async bellRung(count: number): Promise<void> {
    const wait = waitAsync(this.control, this.at.bell, count);
    if (wait.async) await wait.value;
  }

  /** Blocks (worker only) while the slot is full. */
  waitForRoom(): void {
    Atomics.wait(this.control, this.at.state, SLOT_FULL);
  }

  /** Resolves once the slot has room (host: never blocks). */
  async roomMade(): Promise<void> {
    const wait = waitAsync(this.control, this.at.state, SLOT_FULL);
    if (wait.async) await wait.value;
  }
}

/** `Atomics.waitAsync` (ES2024, in Node since 16), typed here: the project's `lib` predates it. */
const waitAsync = (
  Atomics as unknown as {
    waitAsync(
      array: Int32Array,
      index: number,
      value: number,
    ):
      | { async: false; value: "not-equal" | "timed-out" }
      | { async: true; value: Promise<"ok" | "timed-out"> };
  }
).waitAsync;
