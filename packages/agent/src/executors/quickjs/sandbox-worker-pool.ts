import { MessageChannel, type MessagePort, type Worker } from "node:worker_threads";
import { describeThrown, SandboxExitError, startWorkerThread } from "@atrium/kit";
import {
  ChannelSlot,
  channelControl,
  type HostToWorker,
  newChannelMemory,
  type RunNotice,
  type SandboxMemory,
  type SessionRunResult,
  STOP_FLAG,
  WORKER_READY,
  type WorkerToHost,
} from "./worker-protocol.js";

type ToolCallMessage = Extract<WorkerToHost, { type: "tool-call" }>;
type Request = HostToWorker extends infer M ? (M extends { id: number } ? Omit<M, "id"> : never) : never;

/** Idle workers kept for reuse; a new executor on one costs a message, not a thread start. */
const MAX_IDLE_WORKERS = 4;
/**
 * Native stack of a worker, in MB. Kept at the size of Node's main-thread stack: QuickJS's own
 * stack check (see `maxStackBytes` in limits.ts) was measured against it, and when a C path without
 * that check recurses, Node's stack must overflow (a catchable RangeError the session recovers
 * from) before the wasm shadow stack does.
 */
const WORKER_STACK_MB = 1;

export interface SandboxWorkerSpawnOptions {
  /** The worker's entry file, when it is not the package's own (the OS sandbox's bundle). */
  workerEntry?: URL;
  /** QuickJS's wasm file, when it is not the package's (the OS sandbox mounts it apart). */
  wasmFile?: string;
}

/** The worker died (or was terminated) while a request was waiting for it. */
export function sandboxWorkerExit(detail: string): SandboxExitError {
  return new SandboxExitError(`the sandbox worker exited: ${detail}`);
}

/**
 * A sandbox worker thread and its request/reply plumbing over the shared-memory channel
 * (worker-protocol.ts). This side never blocks: it reads the worker's slot when
 * `Atomics.waitAsync` says it filled, and queues what it sends while the worker's slot is full.
 */
export class SandboxWorker {
  /** Set by the executor that holds this worker. */
  onToolCall: ((message: ToolCallMessage) => void) | undefined;
  private readonly control: Int32Array;
  private readonly toWorker: ChannelSlot<HostToWorker>;
  private readonly toHost: ChannelSlot<WorkerToHost>;
  /** Messages waiting for room in the worker's slot, oldest first. */
  private readonly outbox: HostToWorker[] = [];
  private waitingForRoom = false;
  private readonly replies = new Map<number, { resolve(value: unknown): void; reject(error: Error): void }>();
  private nextId = 1;
  private exited: SandboxExitError | undefined;
  private listening = false;

  private constructor(
    private readonly worker: Worker,
    memory: SharedArrayBuffer,
    port: MessagePort,
  ) {
    this.control = channelControl(memory);
    this.toWorker = ChannelSlot.toWorker(memory, port);
    this.toHost = ChannelSlot.toHost(memory, port);
    // Only a pending request keeps the process alive, never an idle worker (a pending
    // `Atomics.waitAsync` does not either).
    worker.unref();
    worker.on("error", (error) => this.fail(sandboxWorkerExit(error.message)));
    worker.on("exit", (code) => this.fail(sandboxWorkerExit(`exit code ${code}`)));
  }

  static async spawn(options: SandboxWorkerSpawnOptions = {}): Promise<SandboxWorker> {
    const memory = newChannelMemory();
    // Carries only messages too big for a slot; neither end listens, both read it synchronously.
    const { port1, port2 } = new MessageChannel();
    const worker = startSandboxWorker(memory, port2, options);
    await new Promise<void>((resolve, reject) => {
      const onMessage = (message: unknown) => {
        if (message !== WORKER_READY) return;
        worker.off("error", reject);
        worker.off("message", onMessage);
        resolve();
      };
      worker.on("message", onMessage);
      worker.once("error", reject);
    });
    return new SandboxWorker(worker, memory, port1);
  }

  get healthy(): boolean {
    return !this.exited;
  }

  request(message: Extract<Request, { type: "run" }>): Promise<SessionRunResult>;
  request(message: Extract<Request, { type: "memory" }>): Promise<SandboxMemory>;
  request(message: Request): Promise<void>;
  request(message: Request): Promise<unknown> {
    if (this.exited) return Promise.reject(this.exited);
    const id = this.nextId++;
    if (this.replies.size === 0) this.worker.ref();
    return new Promise((resolve, reject) => {
      this.replies.set(id, { resolve, reject });
      this.send({ ...message, id } as HostToWorker);
      this.listen();
    });
  }

  post(message: RunNotice): void {
    if (!this.exited) this.send(message);
  }

  /**
   * Asks the running guest code to stop: the interrupt handler sees the flag at once, and the
   * notify wakes a worker that waits for tool results.
   */
  stop(): void {
    Atomics.store(this.control, STOP_FLAG, 1);
    this.toWorker.ring();
  }

  clearStop(): void {
    Atomics.store(this.control, STOP_FLAG, 0);
  }

  async terminate(): Promise<void> {
    this.fail(sandboxWorkerExit("terminated"));
    await this.worker.terminate();
  }

  private send(message: HostToWorker): void {
    this.outbox.push(message);
    this.flush();
  }

  private flush(): void {
    while (this.outbox.length > 0 && !this.exited) {
      const message = this.outbox[0] as HostToWorker;
      if (!this.toWorker.tryPut(message)) break;
      this.outbox.shift();
    }
    if (this.outbox.length === 0 || this.exited || this.waitingForRoom) return;
    this.waitingForRoom = true;
    void this.toWorker.roomMade().then(() => {
      this.waitingForRoom = false;
      this.flush();
    });
  }

  /**
   * Reads the worker's messages while a reply is due. The worker only speaks when asked (a
   * reply, or a tool call during a run), so an idle host leaves no `Atomics.waitAsync` pending:
   * a notify that has to wake a waiting event loop is what makes a crossing slow.
   */
  private listen(): void {
    if (this.listening) return;
    this.listening = true;
    void this.listenWhileDue().catch((error: unknown) => {
      this.listening = false;
      // A message that cannot be read breaks the protocol: the worker can no longer be trusted.
      this.fail(sandboxWorkerExit(`its channel broke (${describeThrown(error)})`));
      void this.worker.terminate();
    });
  }

  private async listenWhileDue(): Promise<void> {
    while (!this.exited && this.replies.size > 0) {
      const rung = this.toHost.bell();
      const message = this.toHost.take();
      if (message) this.receive(message);
      else if (!(await this.pollBell(rung))) await this.toHost.bellRung(rung);
    }
    // In the same synchronous turn as the check above, so a request made from now on listens again.
    this.listening = false;
  }

  /**
   * While a reply is due, looks at the bell once per event-loop turn for up to HOST_POLL_MS
   * before sleeping on it: the event loop keeps running (tools, timers, I/O), and a thread that
   * stays awake is reached far sooner than one woken from `Atomics.waitAsync`, which on a
   * virtual machine costs tens of microseconds on both sides.
   */
  private async pollBell(rung: number): Promise<boolean> {
    const until = performance.now() + HOST_POLL_MS;
    while (performance.now() < until && !this.exited) {
      if (this.toHost.bell() !== rung) return true;
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
    return this.toHost.bell() !== rung;
  }

  private receive(message: WorkerToHost): void {
    if (message.type === "tool-call") {
      this.onToolCall?.(message);
      return;
    }
    const waiter = this.replies.get(message.id);
    if (!waiter) return;
    this.replies.delete(message.id);
    if (this.replies.size === 0) this.worker.unref();
    if (message.ok) waiter.resolve(message.value);
    else waiter.reject(Object.assign(new Error(message.error.message), { name: message.error.name }));
  }

  private fail(error: SandboxExitError): void {
    this.exited ??= error;
    for (const waiter of this.replies.values()) waiter.reject(this.exited);
    this.replies.clear();
    this.outbox.length = 0;
    // Ends the waits of `listen` and `flush`, which see `exited` and stop.
    this.toHost.wakeAll();
    this.toWorker.wakeAll();
  }
}

/** While a reply is due, how long the host polls the bell between event-loop turns before it sleeps. */
const HOST_POLL_MS = 0.5;

const idle: SandboxWorker[] = [];

/** Starts workers ahead of need, so the first executors do not wait for a thread to boot. */
export async function prewarmWorkers(count: number): Promise<void> {
  const missing = Math.max(0, Math.min(count, MAX_IDLE_WORKERS) - idle.length);
  const started = await Promise.all(Array.from({ length: missing }, () => SandboxWorker.spawn()));
  idle.push(...started);
}

/** A worker with no session yet: an idle one when there is one, else a new thread. */
export async function acquireWorker(): Promise<SandboxWorker> {
  for (let worker = idle.pop(); worker; worker = idle.pop()) {
    if (worker.healthy) return worker;
  }
  return SandboxWorker.spawn();
}

/** Gives a worker back: its state is wiped (new wasm instance) and it waits for the next executor. */
export async function releaseWorker(worker: SandboxWorker): Promise<void> {
  worker.onToolCall = undefined;
  worker.clearStop();
  if (!worker.healthy || idle.length >= MAX_IDLE_WORKERS) {
    await worker.terminate();
    return;
  }
  try {
    await worker.request({ type: "recycle" });
    idle.push(worker);
  } catch {
    await worker.terminate();
  }
}

function startSandboxWorker(
  memory: SharedArrayBuffer,
  port: MessagePort,
  { workerEntry, wasmFile }: SandboxWorkerSpawnOptions,
): Worker {
  const options = {
    workerData: { memory, port, wasmFile },
    transferList: [port],
    resourceLimits: { stackSizeMb: WORKER_STACK_MB },
  };
  // In a build, the worker is its own entry (`sandbox-worker.js`) at the root of `dist/`; the
  // code asking for it sits in `dist/` (a chunk or `index.js`) or one folder down (`dist/cli/`).
  const entry = workerEntry
    ? { url: workerEntry }
    : {
        from: import.meta.url,
        source: "./sandbox-worker.ts",
        built: ["./sandbox-worker.js", "../sandbox-worker.js"],
        owner: "QuickJsExecutor",
      };
  return startWorkerThread(entry, options);
}
