import type { AddressInfo } from "node:net";
import { createServer } from "node:net";
import { AbortError } from "@atrium/spec";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GuestFileError, Machine, prepareBoot } from "../src/index.js";
import { SKIP_VM_SUITES } from "./vm-available.js";

describe.skipIf(SKIP_VM_SUITES)("a shared busybox machine", () => {
  // One booted machine for the whole file: a boot costs seconds under TCG.
  let machine: Machine;

  beforeAll(async () => {
    machine = await Machine.create({ image: "busybox", env: { FROM_CONFIG: "config" } });
  }, 180_000);

  afterAll(async () => {
    await machine?.stop();
  });

  describe("exec", () => {
    it("returns stdout, stderr and the exit code of a shell command", async () => {
      const result = await machine.exec("echo out; echo err >&2; exit 3");
      expect(result).toEqual({
        exitCode: 3,
        stdout: "out\n",
        stderr: "err\n",
        timedOut: false,
        truncated: false,
      });
    });

    it("runs an argv without a shell", async () => {
      const result = await machine.exec(["/bin/echo", "a b", "$HOME"]);
      expect(result.stdout).toBe("a b $HOME\n");
      expect(result.exitCode).toBe(0);
    });

    it("passes the image's, the config's and the call's environment, the call's winning", async () => {
      const result = await machine.exec('echo "$PATH|$HOME|$FROM_CONFIG|$FROM_CALL"', {
        env: { FROM_CALL: "call", HOME: "/tmp" },
      });
      expect(result.stdout).toBe(
        "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin|/tmp|config|call\n",
      );
    });

    it("starts in the image's workdir, or the given cwd", async () => {
      expect((await machine.exec("pwd")).stdout).toBe("/root\n");
      expect((await machine.exec("pwd", { cwd: "/tmp" })).stdout).toBe("/tmp\n");
    });

    it("feeds stdin", async () => {
      const result = await machine.exec("wc -c; tr a-z A-Z </dev/null", { stdin: "x".repeat(200_000) });
      expect(result.stdout.trim()).toBe("200000");
      const upper = await machine.exec("tr a-z A-Z", { stdin: "hello stdin\n" });
      expect(upper.stdout).toBe("HELLO STDIN\n");
    });

    it("streams output as it comes", async () => {
      const chunks: string[] = [];
      const result = await machine.exec("echo one; sleep 0.3; echo two", {
        onStdout: (chunk) => chunks.push(Buffer.from(chunk).toString()),
      });
      expect(chunks).toEqual(["one\n", "two\n"]);
      expect(result.stdout).toBe("one\ntwo\n");
    });

    it("kills a command at its timeout and answers 124, children included", async () => {
      const started = Date.now();
      const result = await machine.exec("sleep 30 & sleep 30; echo never", { timeoutMs: 500 });
      expect(result.exitCode).toBe(124);
      expect(result.timedOut).toBe(true);
      expect(result.stdout).toBe("");
      expect(Date.now() - started).toBeLessThan(10_000);
      expect((await machine.exec("ps -o comm | grep -c '^sleep' || true")).stdout.trim()).toBe("0");
    });

    it("reports the signal that ended a command", async () => {
      const result = await machine.exec("kill -TERM $$");
      expect(result.exitCode).toBe(128 + 15);
      expect(result.signal).toBe(15);
    });

    it("aborts through an AbortSignal", async () => {
      const controller = new AbortController();
      const pending = machine.exec("sleep 30", { signal: controller.signal });
      setTimeout(() => controller.abort(), 200);
      await expect(pending).rejects.toBeInstanceOf(AbortError);
      expect((await machine.exec("echo still-alive")).stdout).toBe("still-alive\n");
    });

    it("rejects a program that does not exist, naming it", async () => {
      await expect(machine.exec(["/no/such/program"])).rejects.toThrow(
        "exec: /no/such/program: No such file or directory",
      );
      await expect(machine.exec(["true"], { cwd: "/nowhere" })).rejects.toThrow(
        "exec: cwd /nowhere: No such file or directory",
      );
    });

    it("runs commands concurrently", async () => {
      const results = await Promise.all([1, 2, 3, 4].map((n) => machine.exec(`sleep 0.2; echo ${n}`)));
      expect(results.map((r) => r.stdout)).toEqual(["1\n", "2\n", "3\n", "4\n"]);
    });
  });

  describe("files", () => {
    it("round-trips a binary file byte for byte", async () => {
      const data = new Uint8Array(1_000_003);
      for (let i = 0; i < data.length; i++) data[i] = (i * 7919) % 256;
      await machine.writeFile("/tmp/blob.bin", data, { mode: 0o600 });
      expect(Buffer.from(await machine.readFile("/tmp/blob.bin")).equals(Buffer.from(data))).toBe(true);
      expect((await machine.exec("stat -c '%s %a' /tmp/blob.bin")).stdout).toBe("1000003 600\n");
    });

    it("writes text a command then reads", async () => {
      await machine.writeFile("/root/hello.txt", "héllo\n");
      expect((await machine.exec("cat /root/hello.txt")).stdout).toBe("héllo\n");
      expect(Buffer.from(await machine.readFile("/root/hello.txt")).toString()).toBe("héllo\n");
    });

    it("reports a missing file as NOT_FOUND and a bad directory as an error", async () => {
      const missing = machine.readFile("/no/such/file");
      await expect(missing).rejects.toBeInstanceOf(GuestFileError);
      await expect(missing).rejects.toMatchObject({ code: "NOT_FOUND", errno: 2 });
      await expect(machine.writeFile("/no/such/dir/file", "x")).rejects.toThrow(
        "writeFile /no/such/dir/file: No such file or directory",
      );
    });
  });

  describe("containment", () => {
    it("keeps a fork bomb inside the guest: the timeout kills it and the machine answers after", async () => {
      const result = await machine.exec("bomb() { bomb | bomb & }; bomb; sleep 30", { timeoutMs: 3000 });
      expect(result.exitCode).toBe(124);
      expect((await machine.exec("echo alive")).stdout).toBe("alive\n");
    }, 60_000);

    it("keeps a memory hog inside the guest: the guest's OOM killer ends it, not the agent", async () => {
      // 256 MiB of guest memory; the hog wants more than that.
      const result = await machine.exec("tail /dev/zero", { timeoutMs: 40_000 });
      expect(result.exitCode).toBe(128 + 9);
      expect(result.signal).toBe(9);
      expect((await machine.exec("dmesg | grep -c 'Out of memory: Killed process'")).stdout).not.toBe("0\n");
      expect((await machine.exec("echo alive")).stdout).toBe("alive\n");
    }, 60_000);
  });

  describe("isolation", () => {
    it("has no network device with the network off, and reaches nothing, not even the host's loopback", async () => {
      const connections: string[] = [];
      const server = createServer((socket) => {
        connections.push(String(socket.remoteAddress));
        socket.end("hello from the host\n");
      });
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
      const port = (server.address() as AddressInfo).port;
      try {
        expect((await machine.exec("ls /sys/class/net")).stdout).toBe("lo\n");
        expect((await machine.exec("ip route")).stdout).toBe("");
        for (const host of ["10.0.2.2", "192.168.1.1", "8.8.8.8"]) {
          const result = await machine.exec(`nc -w 2 ${host} ${port} </dev/null; echo rc=$?`);
          expect(result.stdout).toBe("rc=1\n");
          expect(result.stderr).toBe(`nc: can't connect to remote host (${host}): Network is unreachable\n`);
        }
        // 127.0.0.1 is the guest's own loopback (up, nothing listening), not the host's.
        const loopback = await machine.exec(`nc -w 2 127.0.0.1 ${port} </dev/null; echo rc=$?`);
        expect(loopback.stderr).toBe("nc: can't connect to remote host (127.0.0.1): Connection refused\n");
        expect(connections).toEqual([]);
      } finally {
        server.close();
      }
    });

    it("keeps a machine's writes to itself; a machine booted from the image's disk sees the image as built", async () => {
      expect(machine.info.root).toBe("memory");
      await machine.exec("echo scribble > /etc/scribble && sync");
      expect((await machine.exec("cat /etc/scribble")).stdout).toBe("scribble\n");
      // Through the two-step seam a pool uses: prepare once, boot from the plan.
      const plan = await prepareBoot({ image: "busybox" }, { root: "disk" });
      expect(plan.root).toBe("disk");
      await using other = await Machine.boot(plan);
      expect(other.info.root).toBe("disk");
      expect((await other.exec("mount | grep ' / '")).stdout).toBe("/dev/vda on / type ext4 (rw,relatime)\n");
      expect((await other.exec("cat /etc/scribble 2>&1; echo rc=$?")).stdout).toBe(
        "cat: can't open '/etc/scribble': No such file or directory\nrc=1\n",
      );
      // Its own writes land in the throwaway overlay, not in the cached image.
      await other.exec("echo scribble > /etc/scribble && sync");
    }, 180_000);
  });
});
