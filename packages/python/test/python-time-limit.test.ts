// The time limit when the host itself is held up (a loaded machine descheduling it, a long
// synchronous task on its event loop): the host interrupts the code at the limit, and the
// watchdog that replaces a sandbox which does not stop counts its grace from that interrupt.
// A sandbox that stops when asked keeps its state, however late the host got to ask.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { drainPythonWorkers, PythonExecutor } from "../src/index.js";

/** Holds this thread (and its event loop) for `ms`, as a descheduled or busy host would be. */
function blockHost(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

const TIMEOUT_MS = 100;
/** Well past the watchdog (timeout + max(timeout, watchdogGraceMs) = 200 ms). */
const BLOCKED_MS = 1_000;

let executor: PythonExecutor;

beforeAll(async () => {
  executor = await PythonExecutor.create({ watchdogGraceMs: TIMEOUT_MS });
}, 180_000);

afterAll(async () => {
  await executor?.close();
  await drainPythonWorkers();
});

/** Sets a variable, runs `code` while the host is held up past the watchdog, and returns its result. */
async function runBlocked(code: string) {
  expect((await executor.run("canary = 'alive'")).error).toBeUndefined();
  const pending = executor.run(code, { timeoutMs: TIMEOUT_MS });
  blockHost(BLOCKED_MS);
  return pending;
}

const interrupted = {
  kind: "timeout",
  name: "TimeoutError",
  message: `The code did not finish within ${TIMEOUT_MS} ms and was interrupted; variables set before the interruption are kept`,
};

describe("the time limit of a host that was held up", () => {
  it("interrupts an infinite loop and keeps the sandbox when the host got to the interrupt past the watchdog", async () => {
    expect((await runBlocked("while True:\n    pass")).error).toEqual(interrupted);
    expect((await executor.run("canary")).output).toBe("alive");
  });

  it("keeps the sandbox whose time.sleep ended at the deadline while the host was held up", async () => {
    expect((await runBlocked("import time\ntime.sleep(100)")).error).toEqual(interrupted);
    expect((await executor.run("canary")).output).toBe("alive");
  });

  it("still replaces a sandbox whose code catches the interrupt, a grace after it", async () => {
    const code =
      "while True:\n    try:\n        while True:\n            pass\n    except BaseException:\n        pass";
    const started = performance.now();
    expect((await runBlocked(code)).error).toMatchObject({ kind: "timeout", stateLost: true });
    // Interrupted when the host got to it (after the block), and given up on a grace later.
    expect(performance.now() - started).toBeGreaterThanOrEqual(BLOCKED_MS + TIMEOUT_MS);
    expect((await executor.run("canary")).error).toMatchObject({ name: "NameError" });
  }, 60_000);
});
