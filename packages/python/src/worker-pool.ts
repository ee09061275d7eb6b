import { PythonWorkerClient } from "./python-worker-client.js";

/**
 * Warm Pyodide workers, booted ahead of need: loading Pyodide takes seconds, so `create()` takes
 * a booted worker and the pool boots its successor in the background. A worker is never
 * returned to the pool (guest code may have changed its interpreter); closing an executor ends
 * its worker.
 */
const MAX_WARM = 4;
const warm: Promise<PythonWorkerClient>[] = [];
/** How many booted workers the pool keeps ready; the first acquire raises it to 1. */
let target = 0;
/** Set by `setWarmPythonWorkers`: the pool keeps exactly that many, even none. */
let configured = false;

/**
 * The memory snapshot of a fresh interpreter, made by the process's first worker: later workers
 * restore it instead of starting CPython from scratch. Until the first worker has sent it, other
 * boots wait for it rather than each paying for a full start.
 */
let snapshot: Promise<SharedArrayBuffer | undefined> | undefined;

async function spawnWorker(): Promise<PythonWorkerClient> {
  if (!snapshot) {
    let resolveSnapshot!: (memory: SharedArrayBuffer | undefined) => void;
    snapshot = new Promise((resolve) => {
      resolveSnapshot = resolve;
    });
    try {
      return await PythonWorkerClient.spawn(undefined, resolveSnapshot);
    } finally {
      // A first boot that failed leaves no snapshot: the next boot makes one.
      resolveSnapshot(undefined);
      if ((await snapshot) === undefined) snapshot = undefined;
    }
  }
  return PythonWorkerClient.spawn(await snapshot);
}

function bootOne(): Promise<PythonWorkerClient> {
  const booting = spawnWorker();
  // A failed boot surfaces to the acquire that takes it; unclaimed, it must not be unhandled.
  booting.catch(() => undefined);
  return booting;
}

function refill(): void {
  while (warm.length < target) warm.push(bootOne());
}

/** Keeps `count` workers booted and ready (at most 4); resolves once they are. */
export async function prewarmPythonWorkers(count: number): Promise<void> {
  target = Math.max(target, Math.min(Math.max(0, Math.floor(count)), MAX_WARM));
  refill();
  await whileAwaited(Promise.allSettled(warm));
}

/**
 * Booting workers are unref'd (a pool warming in the background must not keep a process alive),
 * so a caller that waits for one keeps the process alive itself until it has it.
 */
async function whileAwaited<T>(promise: Promise<T>): Promise<T> {
  const keepAlive = setInterval(() => undefined, 2 ** 30);
  try {
    return await promise;
  } finally {
    clearInterval(keepAlive);
  }
}

/**
 * Sets how many workers the pool keeps booted (0 to 4). With 0, every `create()` boots its own
 * worker and nothing boots in the background: for memory-tight processes, and for measuring.
 */
export function setWarmPythonWorkers(count: number): void {
  configured = true;
  target = Math.min(Math.max(0, Math.floor(count)), MAX_WARM);
  for (const extra of warm.splice(target)) {
    void extra.then((worker) => worker.terminate()).catch(() => undefined);
  }
}

/** A booted worker: a warm one when there is one (milliseconds), else a new boot (seconds). */
export async function acquirePythonWorker(): Promise<PythonWorkerClient> {
  if (!configured) target = Math.max(target, 1);
  let failure: unknown;
  for (let attempt = 0; attempt < 2; attempt++) {
    refill();
    const next = warm.shift() ?? bootOne();
    refill();
    try {
      const worker = await whileAwaited(next);
      if (worker.healthy) return worker;
    } catch (error) {
      failure = error;
    }
  }
  throw failure ?? new Error("no Python sandbox worker could be booted");
}

/** Ends every warm worker (tests, and processes that want to exit promptly). */
export async function drainPythonWorkers(): Promise<void> {
  target = 0;
  const all = warm.splice(0);
  await Promise.allSettled(
    all.map(async (booting) => {
      const worker = await booting;
      await worker.terminate();
    }),
  );
}
