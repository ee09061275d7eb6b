import { spawn } from "node:child_process";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { GuestFailureError, Machine } from "../src/index.js";
import { SKIP_VM_SUITES } from "./vm-available.js";

describe.skipIf(SKIP_VM_SUITES)("failures", () => {
  function isRunning(pid: number): boolean {
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  }

  async function waitGone(pid: number, timeoutMs: number): Promise<boolean> {
    const end = Date.now() + timeoutMs;
    while (Date.now() < end) {
      if (!isRunning(pid)) return true;
      await sleep(50);
    }
    return !isRunning(pid);
  }

  describe("a guest that dies", () => {
    it("turns a kernel panic into a clear error, with no QEMU left", async () => {
      const machine = await Machine.create({ image: "busybox" });
      const pid = machine.info.qemuPid;
      const pending = machine.exec("echo c > /proc/sysrq-trigger; sleep 30");
      await expect(pending).rejects.toBeInstanceOf(GuestFailureError);
      await expect(pending).rejects.toThrow(
        "the guest kernel panicked (Kernel panic - not syncing: sysrq triggered crash)",
      );
      expect(await waitGone(pid, 5000)).toBe(true);
      // The machine stays dead and says why.
      await expect(machine.exec("true")).rejects.toThrow("the guest kernel panicked");
      await machine.stop();
    }, 180_000);

    it("turns an agent crash into a clear error, with no QEMU left", async () => {
      const machine = await Machine.create({ image: "busybox" });
      const pid = machine.info.qemuPid;
      // The agent is PID 1's only direct child; SIGSEGV it the way a crash would.
      const pending = machine.exec("kill -SEGV $(cut -d' ' -f1 /proc/1/task/1/children); sleep 30");
      await expect(pending).rejects.toThrow(/atrium-init: guest agent crashed: killed by signal 11/);
      expect(await waitGone(pid, 5000)).toBe(true);
      await machine.stop();
    }, 180_000);
  });

  describe("a host that dies", () => {
    it("leaves no QEMU behind when killed with SIGKILL", async () => {
      const script = fileURLToPath(new URL("./fixtures/boot-and-wait.ts", import.meta.url));
      const child = spawn(process.execPath, ["--conditions=@atrium/source", "--import", "tsx", script], {
        stdio: ["ignore", "pipe", "inherit"],
      });
      const qemuPid = await new Promise<number>((resolve, reject) => {
        let output = "";
        child.stdout.on("data", (chunk: Buffer) => {
          output += chunk.toString();
          const match = /qemu-pid (\d+)/.exec(output);
          if (match) resolve(Number(match[1]));
        });
        child.on("exit", (code) =>
          reject(new Error(`the host process exited (${code}) before booting: ${output}`)),
        );
      });
      expect(isRunning(qemuPid)).toBe(true);
      child.kill("SIGKILL");
      expect(await waitGone(qemuPid, 5000)).toBe(true);
    }, 180_000);
  });
});
