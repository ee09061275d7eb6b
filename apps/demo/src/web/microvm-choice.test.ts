// Whether the demo offers the micro-VM: from what microvm's doctor() reports about the host (given
// here as the report data a host without QEMU produces) and whether Debian's python3 is there.
// Booting one is tested in tests/e2e/demo-microvm.test.ts.
import type { DoctorReport } from "@atrium/microvm";
import { describe, expect, it } from "vitest";
import { microVmChoice } from "./microvm-choice.js";

const HEALTHY: DoctorReport = { ok: true, missing: [] };
const NO_QEMU: DoctorReport = {
  ok: false,
  missing: [
    {
      what: "QEMU",
      install: "sudo apt-get install -y qemu-system-x86",
      detail: "qemu-system-x86_64 is not on PATH",
    },
  ],
};

describe("microVmChoice", () => {
  it("offers the micro-VM when the doctor finds nothing missing and python3 is there", async () => {
    const choice = await microVmChoice({ doctor: async () => HEALTHY, hostPython: process.execPath });
    expect("factory" in choice && { id: choice.id, label: choice.label }).toEqual({
      id: "microvm",
      label: "Python in a micro-VM (QEMU)",
    });
    if (!("factory" in choice)) throw new Error("not offered");
    expect(choice.factory.capabilities).toMatchObject({
      language: "python",
      isolation: "vm",
      network: "none",
    });
    await choice.shutdown?.(); // nothing booted: closing is immediate
  });

  it("says what is missing and the commands that install it", async () => {
    expect(await microVmChoice({ doctor: async () => NO_QEMU, hostPython: "/nonexistent/python3" })).toEqual({
      id: "microvm",
      label: "Python in a micro-VM (QEMU)",
      reason:
        "not available on this host: QEMU is missing (sudo apt-get install -y qemu-system-x86); /nonexistent/python3 is missing (sudo apt-get install -y python3-minimal libpython3-stdlib)",
    });
  });

  it("turns a failed host check into the reason", async () => {
    const failing = async (): Promise<DoctorReport> => {
      throw new Error("cannot write the cache directory /nonexistent");
    };
    expect(await microVmChoice({ doctor: failing, hostPython: process.execPath })).toEqual({
      id: "microvm",
      label: "Python in a micro-VM (QEMU)",
      reason:
        "not available on this host: the host check failed: cannot write the cache directory /nonexistent",
    });
  });
});
