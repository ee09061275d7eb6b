import { QuickJsProcessClient } from "./process/quickjs-process-client.js";
import type { QuickJsIsolation } from "./quickjs-capabilities.js";
import type { QuickJsSandboxHandle } from "./sandbox-handle.js";
import { acquireWorker, prewarmWorkers, releaseWorker, SandboxWorker } from "./sandbox-worker-pool.js";

/** Sandbox processes booted ahead of need; a process serves one executor and then ends. */
const MAX_WARM_PROCESSES = 4;
const warmProcesses: Promise<QuickJsProcessClient>[] = [];
/** How many warm processes `prewarm` asked for: each one taken is replaced in the background. */
let warmTarget = 0;

function refillProcesses(): void {
  while (warmProcesses.length < warmTarget) warmProcesses.push(bootProcess());
}

function bootProcess(): Promise<QuickJsProcessClient> {
  const booting = QuickJsProcessClient.spawn();
  booting.catch(() => undefined);
  return booting;
}

/** A sandbox of that isolation: an idle or warm one when there is one. */
export async function acquireSandbox(isolation: QuickJsIsolation): Promise<QuickJsSandboxHandle> {
  if (isolation === "worker") return acquireWorker();
  for (let next = warmProcesses.shift(); next; next = warmProcesses.shift()) {
    refillProcesses();
    const sandbox = await next.catch(() => undefined);
    if (sandbox?.healthy) return sandbox;
  }
  return QuickJsProcessClient.spawn();
}

/** Gives a sandbox back: a worker is wiped and kept for the next executor, a process ends. */
export async function releaseSandbox(sandbox: QuickJsSandboxHandle): Promise<void> {
  if (sandbox instanceof SandboxWorker) await releaseWorker(sandbox);
  else await sandbox.terminate();
}

export async function prewarmSandboxes(count: number, isolation: QuickJsIsolation): Promise<void> {
  if (isolation === "worker") return prewarmWorkers(count);
  warmTarget = Math.max(warmTarget, Math.min(Math.max(0, Math.floor(count)), MAX_WARM_PROCESSES));
  refillProcesses();
  await Promise.allSettled(warmProcesses);
}

/** Ends every warm sandbox process (tests, and processes that want to exit promptly). */
export async function drainSandboxProcesses(): Promise<void> {
  warmTarget = 0;
  const all = warmProcesses.splice(0);

  await Promise.allSettled(all.map(async (booting) => (await booting).terminate()));
}
