import { MessageChannel, type MessagePort, type Worker } from "node:worker_threads";
import { SandboxExitError, startWorkerThread, type WorkerEntry } from "@atrium/kit";
import { ConfigError } from "@atrium/spec";
import { PythonWorkerRequestError } from "./errors.js";
import {
  clearInterrupt,
  type HarnessRunResult,
  type HostToWorker,
  interrupt,
  newSharedMemory,
  putToolOutcome,
  type ToolOutcome,
  type WorkerToHost,
} from "./worker-protocol.js";

type ToolCallMessage = Extract<WorkerToHost, { type: "tool-call" }>;
type Request = HostToWorker extends infer M ? (M extends { id: number } ? Omit<M, "id"> : never) : never;

export interface PythonWorkerSpawnOptions {
  /** A memory snapshot of a fresh interpreter to restore instead of starting CPython. */
  snapshot?: SharedArrayBuffer;
  /** Receives the snapshot a worker makes when it booted without one. */
  onSnapshot?: (snapshot: SharedArrayBuffer) => void;
  /** Pyodide's files, when they are not this package's `pyodide` dependency (the OS sandbox). */
  pyodideFiles?: { moduleUrl: string; indexURL: string };
  /** What the worker runs: `packagedWorkerEntry()`, or the OS sandbox's own bundle. */
  workerEntry: WorkerEntry;
  /** The Python harness's source (`pythonHarness()`), run once the interpreter has loaded. */
  harness: string;
}

/** The worker died, was terminated, or broke (a fatal error in the interpreter). */
export function pythonWorkerExit(detail: string): SandboxExitError {
  return new SandboxExitError(`the Python sandbox worker exited: ${detail}`);
}

/**
 * The host's handle on one Pyodide worker thread: boot, requests and replies over
 * `postMessage`, tool calls answered through shared memory (worker-protocol.ts), interrupts,
 * and termination. It never blocks the host's event loop.
 */
export class PythonWorkerClient {
  onToolCall: ((message: ToolCallMessage) => void) | undefined;
  private readonly replies = new Map<number, { resolve(value: unknown): void; reject(error: Error): void }>();
  private nextId = 1;
  private exited: SandboxExitError | undefined;

  private constructor(
    private readonly worker: Worker,
    private readonly memory: SharedArrayBuffer,
    private readonly toolPort: MessagePort,
  ) {
    worker.on("message", (message: WorkerToHost) => this.receive(message));
    worker.on("error", (error) => this.fail(pythonWorkerExit(error.message)));
    worker.on("exit", (code) => this.fail(pythonWorkerExit(`exit code ${code}`)));
    // Only a pending request keeps the process alive, never an idle worker. After the
    // listeners: attaching a "message" listener refs the worker's port again.
    worker.unref();
  }

  /** Starts a worker and waits until Pyodide has loaded in it (seconds: see the README). */
  static async spawn(options: PythonWorkerSpawnOptions): Promise<PythonWorkerClient> {
    const { onSnapshot } = options;
    const memory = newSharedMemory();
    const { port1, port2 } = new MessageChannel();
    // The host only posts on its end (large tool outcomes): it must not keep the process alive.
    port1.unref();
    const worker = startPythonWorker(memory, port2, options);
    await new Promise<void>((resolve, reject) => {
      const onMessage = (message: WorkerToHost) => {
        if (message.type === "snapshot") {
          onSnapshot?.(message.memory);
        } else if (message.type === "ready") {
          cleanUp();
          resolve();
        } else if (message.type === "boot-failed") {
          cleanUp();
          void worker.terminate();
          reject(new ConfigError(`Pyodide did not load in the sandbox worker: ${message.message}`));
        }
      };
      const onError = (error: Error) => {
        cleanUp();
        reject(error);
      };
      const onExit = (code: number) => {
        cleanUp();
        reject(pythonWorkerExit(`exit code ${code} while booting`));
      };
      const cleanUp = () => {
        worker.off("message", onMessage);
        worker.off("error", onError);
        worker.off("exit", onExit);
      };
      worker.on("message", onMessage);
      worker.on("error", onError);
      worker.on("exit", onExit);
      // Booting must not keep the process alive on its own (a pool warming in the background).
      worker.unref();
    });
    return new PythonWorkerClient(worker, memory, port1);
  }

  get healthy(): boolean {
    return !this.exited;
  }

  request(message: Extract<Request, { type: "run" }>): Promise<HarnessRunResult>;
  request(message: Request): Promise<void>;
  request(message: Request): Promise<unknown> {
    if (this.exited) return Promise.reject(this.exited);
    const id = this.nextId++;
    if (this.replies.size === 0) this.worker.ref();
    return new Promise((resolve, reject) => {
      this.replies.set(id, { resolve, reject });
      this.worker.postMessage({ ...message, id });
    });
  }

  answerTool(callId: number, outcome: ToolOutcome): void {
    if (!this.exited) putToolOutcome(this.memory, this.toolPort, callId, outcome);
  }

  /** Asks the running step to stop: CPython raises KeyboardInterrupt at its next check. */
  interrupt(): void {
    interrupt(this.memory);
  }

  clearInterrupt(): void {
    clearInterrupt(this.memory);
  }

  async terminate(): Promise<void> {
    this.fail(pythonWorkerExit("terminated"));
    await this.worker.terminate();
  }

  private receive(message: WorkerToHost): void {
    if (message.type === "tool-call") {
      this.onToolCall?.(message);
      return;
    }
    if (message.type !== "reply") return;
    const waiter = this.replies.get(message.id);
    if (!waiter) return;
    this.replies.delete(message.id);
    if (this.replies.size === 0) this.worker.unref();
    if (message.ok) {
      waiter.resolve(message.value);
    } else if (message.fatal) {
      // The interpreter can no longer be trusted: end the worker, the executor replaces it.
      const exit = pythonWorkerExit(`${message.error.name}: ${message.error.message}`);
      waiter.reject(exit);
      this.fail(exit);
      void this.worker.terminate();
    } else {
      waiter.reject(
        Object.assign(new PythonWorkerRequestError(message.error.message), { name: message.error.name }),
      );
    }
  }

  private fail(error: SandboxExitError): void {
    this.exited ??= error;
    for (const waiter of this.replies.values()) waiter.reject(this.exited);
    this.replies.clear();
    // Wakes a worker waiting for a tool, so it sees it must stop.
    interrupt(this.memory);
  }
}

function startPythonWorker(
  memory: SharedArrayBuffer,
  toolPort: MessagePort,
  { snapshot, pyodideFiles, workerEntry, harness }: PythonWorkerSpawnOptions,
): Worker {
  // Each worker restores its own copy: handed the shared original, a guest that got into one
  // worker's JavaScript could rewrite the interpreter every later worker starts from.
  const copy = snapshot?.slice(0);
  return startWorkerThread(workerEntry, {
    workerData: { memory, toolPort, snapshot: copy, pyodideFiles, harness },
    transferList: [toolPort],
  });
}
