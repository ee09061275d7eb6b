import { setTimeout as sleep } from "node:timers/promises";
import { ClosedError } from "@atrium/spec";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WarmPool } from "../src/pool/warm-pool.js";
import { qemuDescendants } from "./qemu-processes.js";
import { SKIP_VM_SUITES } from "./vm-available.js";

/** PIDs of the QEMU processes this process started, from /proc. */
function qemuChildren(): number[] {
  return qemuDescendants(process.pid);
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function waitFor(check: () => boolean, timeoutMs: number): Promise<boolean> {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    if (check()) return true;
    await sleep(50);
  }
  return check();
}

describe.skipIf(SKIP_VM_SUITES)("a warm pool of busybox machines", () => {
  let pool: WarmPool;

  beforeAll(async () => {
    pool = await WarmPool.create({ image: "busybox" }, { size: 1 });
    await pool.whenFull();
  }, 180_000);

  afterAll(async () => {
    await pool?.close();
  });

  it("hands out a booted machine at once and boots its replacement in the background", async () => {
    const [idlePid] = pool.qemuPids();
    const coldBootMs = pool.lastBootMs as number;
    const started = performance.now();
    const machine = await pool.acquire();
    const result = await machine.exec(["echo", "warm"]);
    const warmMs = performance.now() - started;
    console.log(
      `warm start to exec: ${warmMs.toFixed(1)} ms; the boot it replaces: ${coldBootMs.toFixed(0)} ms`,
    );
    try {
      expect(result.stdout).toBe("warm\n");
      expect(machine.info.qemuPid).toBe(idlePid);
      // The budget is 200 ms on an idle host (see the bench); on a shared CI host the
      // test holds it to a tenth of the cold boot it replaces, measured in the same run.
      expect(warmMs).toBeLessThan(coldBootMs / 10);
      expect(pool.idleCount).toBe(0);
      await pool.whenFull();
      expect(pool.idleCount).toBe(1);
      expect(pool.qemuPids()).not.toContain(idlePid);
    } finally {
      await machine.stop();
    }
    expect(isRunning(idlePid as number)).toBe(false);
  }, 180_000);

  it("makes an acquire wait for the next boot when none is idle", async () => {
    const first = await pool.acquire();
    const second = await pool.acquire();
    try {
      expect(second.info.qemuPid).not.toBe(first.info.qemuPid);
      expect((await second.exec("echo second")).stdout).toBe("second\n");
    } finally {
      await Promise.all([first.stop(), second.stop()]);
    }
  }, 180_000);

  it("stops an idle machine past maxIdleMs and refills only when asked again", async () => {
    const idler = await WarmPool.create({ image: "busybox" }, { size: 1, maxIdleMs: 500 });
    try {
      await idler.whenFull();
      const [pid] = idler.qemuPids();
      expect(await waitFor(() => !isRunning(pid as number), 10_000)).toBe(true);
      expect(idler.idleCount).toBe(0);
      await sleep(1500);
      expect(idler.idleCount).toBe(0);
      const machine = await idler.acquire();
      expect((await machine.exec("echo again")).stdout).toBe("again\n");
      await machine.stop();
    } finally {
      await idler.close();
    }
  }, 180_000);

  it("stops every QEMU it holds on close, a booting one included, and refuses acquires after", async () => {
    const closing = await WarmPool.create({ image: "busybox" }, { size: 1 });
    await closing.whenFull();
    const handedOut = await closing.acquire(); // the refill boot starts now
    const waiting = closing.acquire(); // nothing idle: waits for that boot
    waiting.catch(() => {}); // asserted below; close rejects it first
    await closing.close();
    await expect(waiting).rejects.toBeInstanceOf(ClosedError);
    await expect(closing.acquire()).rejects.toThrow("this warm pool is closed; create a new one");
    expect(closing.qemuPids()).toEqual([]);
    // Every QEMU this process still runs, by PID: only the machine handed out (its caller's to
    // stop) and the shared pool's idle one are left; the refill boot was stopped.
    expect(qemuChildren().sort()).toEqual([handedOut.info.qemuPid, ...pool.qemuPids()].sort());
    await handedOut.stop();
    expect(isRunning(handedOut.info.qemuPid)).toBe(false);
  }, 240_000);
});
