import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Machine, readSnapshotManifest, SnapshotFormatError } from "../src/index.js";
import { SKIP_VM_SUITES } from "./vm-available.js";

let work: string;

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), "atrium-vm-snapshot-"));
});

afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

describe("snapshot files that cannot be restored", () => {
  it("refuses a file that is not a snapshot, naming it and what to do", async () => {
    const path = join(work, "not-a-snapshot");
    await writeFile(path, "x".repeat(100));
    const restoring = Machine.restore(path);
    await expect(restoring).rejects.toBeInstanceOf(SnapshotFormatError);
    await expect(restoring).rejects.toThrow(
      `${path} is not a usable atrium-vm snapshot: no snapshot magic; take it again with machine.snapshot() or atrium-vm snapshot`,
    );
  });
});

/** The guest's clock would otherwise stop at the snapshot; the restore sets it from the host's. */
const guestClock = "date +%s";
/** 32 bytes of the guest's CRNG, as 64 hex digits. */
const urandom = "head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \\n'";
/** Drop the guest's page cache, so what is read next comes from its disk (its overlay). */
const fromDisk = "sync && echo 3 > /proc/sys/vm/drop_caches && ";

describe.skipIf(SKIP_VM_SUITES)("snapshots and forks of a busybox machine with a disk root", () => {
  // One machine for the file (a boot costs seconds under TCG); each test restores or forks it.
  let machine: Machine;

  beforeAll(async () => {
    machine = await Machine.create({ image: "busybox" }, { root: "disk" });
  }, 180_000);

  afterAll(async () => {
    await machine?.stop();
  });

  it("restores files, running processes and the network policy, while the original runs on", async () => {
    await machine.exec("echo kept > /root/note; sleep 600 > /dev/null 2>&1 & echo $! > /root/sleeper");
    const path = join(work, "busybox.snapshot");
    const info = await machine.snapshot(path, { note: { step: 3 } });
    expect(info.path).toBe(path);
    expect(info.diskBytes).toBeGreaterThan(0);
    const manifest = await readSnapshotManifest(path);
    expect([manifest.root, manifest.diskBase]).toEqual(["disk", "image"]);
    // Under TCG the RAM (a memfd) has a section of its own; the stream holds CPUs and devices.
    expect(manifest.ram !== undefined).toBe(machine.info.accelerator === "tcg");
    expect(manifest.state.size + (manifest.ram?.size ?? 0)).toBe(info.stateBytes);
    await machine.exec("echo changed > /root/note");

    const restored = await Machine.restore(path);
    try {
      const result = await restored.exec(
        `${fromDisk}cat /root/note; kill -0 $(cat /root/sleeper) && echo alive`,
      );
      expect(result).toEqual({
        exitCode: 0,
        stdout: "kept\nalive\n",
        stderr: "",
        timedOut: false,
        truncated: false,
      });
      expect(restored.info.restoredFrom).toBe(path);
      expect(restored.snapshotNote).toEqual({ step: 3 });
      // The network was off, and stays off: no interface but loopback.
      expect((await restored.exec("ls /sys/class/net")).stdout).toBe("lo\n");
      const clock = Number((await restored.exec(guestClock)).stdout);
      expect(Math.abs(clock - Date.now() / 1000)).toBeLessThan(5);
      // A restored machine snapshots its own overlay, not the image's: a chain of restores.
      await restored.exec("echo second > /root/note");
      await restored.snapshot(join(work, "second.snapshot"));
      const again = await Machine.restore(join(work, "second.snapshot"));
      try {
        expect((await again.exec(`${fromDisk}cat /root/note`)).stdout).toBe("second\n");
      } finally {
        await again.stop();
      }
    } finally {
      await restored.stop();
    }
    expect((await machine.exec("cat /root/note")).stdout).toBe("changed\n");
  }, 180_000);

  it("makes forks that never see each other's writes, nor the original's", async () => {
    await machine.exec("echo before > /root/shared");
    const forks = await machine.fork(2);
    expect(forks).toHaveLength(2);
    const [zero, one] = forks as [Machine, Machine];
    try {
      await zero.exec("echo zero > /root/shared; echo only-zero > /root/mine");
      await one.exec("echo one > /root/shared");
      await machine.exec("echo original > /root/shared");
      expect((await zero.exec(`${fromDisk}cat /root/shared /root/mine`)).stdout).toBe("zero\nonly-zero\n");
      expect((await one.exec(`${fromDisk}cat /root/shared; test -e /root/mine || echo absent`)).stdout).toBe(
        "one\nabsent\n",
      );
      expect(
        (await machine.exec(`${fromDisk}cat /root/shared; test -e /root/mine || echo absent`)).stdout,
      ).toBe("original\nabsent\n");
    } finally {
      await Promise.all(forks.map((fork) => fork.stop()));
    }
  }, 240_000);

  it("gives two forks different bytes from /dev/urandom", async () => {
    const forks = await machine.fork(2);
    try {
      const [a, b] = await Promise.all(forks.map(async (fork) => (await fork.exec(urandom)).stdout));
      expect(a).toMatch(/^[0-9a-f]{64}$/);
      expect(b).toMatch(/^[0-9a-f]{64}$/);
      expect(a).not.toBe(b);
    } finally {
      await Promise.all(forks.map((fork) => fork.stop()));
    }
  }, 240_000);

  it("forks while a command streams output: the clone's channel stays in step, the original's output is whole", async () => {
    // Output frames of up to 64 KiB cross virtio-serial in pieces: a fork may stop the guest
    // between two pieces of one frame, whose rest then reaches the clone's host.
    const bytes = 8 * 1024 * 1024;
    let received = 0;
    const streaming = machine.exec(`head -c ${bytes} /dev/zero | tr '\\0' x`, {
      keepOutput: false,
      onStdout: (chunk) => {
        received += chunk.byteLength;
      },
    });
    await new Promise((resolve) => setTimeout(resolve, 100));
    const [clone] = (await machine.fork(1)) as [Machine];
    try {
      expect((await clone.exec("echo ok")).stdout).toBe("ok\n");
    } finally {
      await clone.stop();
    }
    expect((await streaming).exitCode).toBe(0);
    expect(received).toBe(bytes);
  }, 240_000);

  it("refuses a fork count outside 1..maxForks", async () => {
    await expect(machine.fork(0)).rejects.toThrow(
      "fork: count must be a whole number from 1 to maxForks (8), not 0",
    );
  });
});
