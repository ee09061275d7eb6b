import { pythonHarness } from "./harness/harness-file.js";
import { PythonIsolation } from "./python-isolation.js";
import type { PythonSandboxClient } from "./python-sandbox-client.js";
import { PythonWorkerClient } from "./python-worker-client.js";
import { packagedWorkerEntry } from "./python-worker-entry.js";
import { PythonProcessClient } from "./sandbox/python-process-client.js";

/**
 * Warm Python sandboxes, booted ahead of need, one pool per isolation: loading Pyodide takes
 * seconds, so `create()` takes a booted sandbox and the pool boots its successor in the
 * background. A sandbox is never returned to the pool (guest code may have changed its
 * interpreter); closing an executor ends its sandbox.
 */
const MAX_WARM = 4;
/** How long after handing out a warm sandbox its successor starts booting. */
const REFILL_DELAY_MS = 100;

/**
 * One pool. The first sandbox it boots snapshots its fresh interpreter (before any harness or
 * guest code exists); later boots restore that snapshot instead of starting CPython from
 * scratch, and wait for it rather than each paying for a full start.
 */
class SandboxPool<Snapshot> {
  private readonly warm: Promise<PythonSandboxClient>[] = [];
  /** How many booted sandboxes the pool keeps ready; the first acquire raises it to 1. */
  target = 0;
  /** Set by `setWarmPythonWorkers`: the pool keeps exactly that many, even none. */
  configured = false;
  private snapshot: Promise<Snapshot | undefined> | undefined;
  private refillTimer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    private readonly boot: (
      snapshot: Snapshot | undefined,
      onSnapshot: (snapshot: Snapshot) => void,
    ) => Promise<PythonSandboxClient>,
  ) {}

  private async spawn(): Promise<PythonSandboxClient> {
    if (!this.snapshot) {
      let resolveSnapshot!: (snapshot: Snapshot | undefined) => void;
      this.snapshot = new Promise((resolve) => {
        resolveSnapshot = resolve;
      });
      try {
        return await this.boot(undefined, resolveSnapshot);
      } finally {
        // A first boot that failed leaves no snapshot: the next boot makes one.
        resolveSnapshot(undefined);
        if ((await this.snapshot) === undefined) this.snapshot = undefined;
      }
    }
    return this.boot(await this.snapshot, () => undefined);
  }

  private bootOne(): Promise<PythonSandboxClient> {
    const booting = this.spawn();
    // A failed boot surfaces to the acquire that takes it; unclaimed, it must not be unhandled.
    booting.catch(() => undefined);
    return booting;
  }

  private refill(): void {
    while (this.warm.length < this.target) this.warm.push(this.bootOne());
  }

  /**
   * Boots the successors of a sandbox just handed out, a moment later: starting a boot copies
   * the interpreter snapshot (tens of MB) on this thread, which would otherwise delay the
   * executor being created.
   */
  private refillSoon(): void {
    if (this.refillTimer) return;
    this.refillTimer = setTimeout(() => {
      this.refillTimer = undefined;
      this.refill();
    }, REFILL_DELAY_MS);
    this.refillTimer.unref();
  }

  async prewarm(count: number): Promise<void> {
    this.target = Math.max(this.target, Math.min(Math.max(0, Math.floor(count)), MAX_WARM));
    this.refill();
    await whileAwaited(Promise.allSettled(this.warm));
  }

  setWarm(count: number): void {
    this.configured = true;
    this.target = Math.min(Math.max(0, Math.floor(count)), MAX_WARM);
    for (const extra of this.warm.splice(this.target)) {
      void extra.then((sandbox) => sandbox.terminate()).catch(() => undefined);
    }
  }

  async acquire(): Promise<PythonSandboxClient> {
    if (!this.configured) this.target = Math.max(this.target, 1);
    let failure: unknown;
    for (let attempt = 0; attempt < 2; attempt++) {
      const next = this.warm.shift() ?? this.bootOne();
      this.refillSoon();
      try {
        const sandbox = await whileAwaited(next);
        if (sandbox.healthy) return sandbox;
      } catch (error) {
        failure = error;
      }
    }
    throw failure ?? new Error("no Python sandbox could be booted");
  }

  async drain(): Promise<void> {
    this.target = 0;
    if (this.refillTimer) clearTimeout(this.refillTimer);
    this.refillTimer = undefined;
    const all = this.warm.splice(0);
    // A sandbox still booting is unref'd: whoever waits for the pool to drain keeps the process alive.
    await whileAwaited(Promise.allSettled(all.map(async (booting) => (await booting).terminate())));
  }
}

/**
 * Booting sandboxes are unref'd (a pool warming in the background must not keep a process
 * alive), so a caller that waits for one keeps the process alive itself until it has it.
 */
async function whileAwaited<T>(promise: Promise<T>): Promise<T> {
  const keepAlive = setInterval(() => undefined, 2 ** 30);
  try {
    return await promise;
  } finally {
    clearInterval(keepAlive);
  }
}

const pools: Record<PythonIsolation, SandboxPool<unknown>> = {
  process: new SandboxPool<Uint8Array>((snapshot, onSnapshot) =>
    PythonProcessClient.spawn({ ...(snapshot ? { snapshot } : {}), onSnapshot, harness: pythonHarness() }),
  ) as SandboxPool<unknown>,
  wasm: new SandboxPool<SharedArrayBuffer>((snapshot, onSnapshot) =>
    PythonWorkerClient.spawn({
      ...(snapshot ? { snapshot } : {}),
      onSnapshot,
      workerEntry: packagedWorkerEntry(),
      harness: pythonHarness(),
    }),
  ) as SandboxPool<unknown>,
};

/** Keeps `count` sandboxes of that isolation booted and ready (at most 4); resolves once they are. */
export function prewarmPythonWorkers(
  count: number,
  isolation: PythonIsolation = PythonIsolation.default,
): Promise<void> {
  return pools[isolation].prewarm(count);
}

/**
 * Sets how many sandboxes each pool keeps booted (0 to 4). With 0, every `create()` boots its
 * own and nothing boots in the background: for memory-tight processes, and for measuring.
 */
export function setWarmPythonWorkers(count: number): void {
  for (const pool of Object.values(pools)) pool.setWarm(count);
}

/** A booted sandbox: a warm one when there is one (milliseconds), else a new boot (seconds). */
export function acquirePythonWorker(isolation: PythonIsolation): Promise<PythonSandboxClient> {
  return pools[isolation].acquire();
}

/** Ends every warm sandbox (tests, and processes that want to exit promptly). */
export async function drainPythonWorkers(): Promise<void> {
  await Promise.all(Object.values(pools).map((pool) => pool.drain()));
}
