import { describe, expect, it } from "vitest";
import { doctor } from "../src/index.js";
import { SKIP_VM_SUITES } from "./vm-available.js";

describe.skipIf(SKIP_VM_SUITES)("doctor", () => {
  it("reports the engine, QEMU, the kernel and nothing missing on a host set up for machines", async () => {
    const report = await doctor();
    expect(report.missing).toEqual([]);
    expect(report.ok).toBe(true);
    expect(report.qemu?.version).toMatch(/^\d+\.\d+/);
    expect(report.kernel?.vmlinuz).toMatch(/^\/boot\/vmlinuz-/);
    expect(report.kernel?.modulesDir).toBe(`/lib/modules/${report.kernel?.release}`);
    expect(["kvm", "tcg"]).toContain(report.engine?.accelerator);
    expect(report.engine?.reason).not.toBe("");
  }, 120_000);

  it("names a missing QEMU with the command that installs it", async () => {
    const saved = process.env.ATRIUM_QEMU;
    process.env.ATRIUM_QEMU = "/nonexistent/qemu-system-x86_64";
    try {
      const report = await doctor();
      expect(report.ok).toBe(false);
      expect(report.engine).toBeUndefined();
      expect(report.missing.map((m) => [m.what, m.install])).toEqual([
        ["QEMU", "sudo apt-get install -y qemu-system-x86"],
      ]);
    } finally {
      if (saved === undefined) delete process.env.ATRIUM_QEMU;
      else process.env.ATRIUM_QEMU = saved;
    }
  }, 120_000);
});
