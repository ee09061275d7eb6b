import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bootPythonMachine, type Machine, MicroVmExecutor } from "../src/index.js";
import { SKIP_VM_SUITES } from "./vm-available.js";

// HELD (passes): guest code that stops its own timer (the harness's hold_clock / setitimer) is
// still bounded by the host's watchdog when no approval is pending.
describe.skipIf(SKIP_VM_SUITES)("held: micro-VM guest stops its own clock", () => {
  let machine: Machine;
  let executor: MicroVmExecutor;
  beforeAll(async () => {
    machine = await bootPythonMachine();
    executor = await MicroVmExecutor.create({ machine, stopGraceMs: 1_000, watchdogGraceMs: 1_000 });
  }, 240_000);
  afterAll(async () => {
    await executor?.close();
    await machine?.stop();
  });

  it("a guest that cancels its ITIMER and spins is stopped by the host", async () => {
    const code = `import sys, signal, time
h = sys.modules[[k for k, m in sys.modules.items() if hasattr(m, 'hold_clock')][0]]
h.hold_clock(True)
signal.setitimer(signal.ITIMER_REAL, 0)
t0 = time.time()
while time.time() - t0 < 15:
    pass
print("escaped")
`;
    const started = Date.now();
    const result = await executor.run(code, { timeoutMs: 1_000 });
    const elapsed = Date.now() - started;
    expect(result.error?.kind).toBe("timeout");
    expect(elapsed).toBeLessThan(6_000);
  }, 60_000);
});
