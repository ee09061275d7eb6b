import { copyFile, mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Machine } from "../src/index.js";
import { bootNamedMachine } from "../src/named-machine/boot-named-machine.js";
import { createNamedMachine } from "../src/named-machine/machine-store.js";
import { bootPack, importPack, packMachine } from "../src/pack/pack-machine.js";
import { SKIP_VM_SUITES } from "./vm-available.js";

// What the guest says about its own state: the file written before packing, the init's work,
// the kernel, the root's files.
const PROBE = "cat /root/state.txt; cat /root/from-init; uname -r; ls /root";

describe.skipIf(SKIP_VM_SUITES)("a named machine packed into one file and booted elsewhere", () => {
  let work: string;
  let stateDir: string;
  let packPath: string;
  let before: { exitCode: number; stdout: string; stderr: string };

  beforeAll(async () => {
    work = await mkdtemp(join(tmpdir(), "atrium-pack-"));
    stateDir = join(work, "state");
    await createNamedMachine(
      "packed",
      { image: "busybox", init: ["test -f /root/from-init || echo init-ran > /root/from-init"] },
      { stateDir },
    );
    const machine = await bootNamedMachine("packed", { stateDir });
    await machine.writeFile("/root/state.txt", "written before packing\n");
    const result = await machine.exec(PROBE);
    before = { exitCode: result.exitCode, stdout: result.stdout, stderr: result.stderr };
    await machine.stop();
    packPath = join(work, "packed.atrium-vm");
    await packMachine({ name: "packed", out: packPath, stateDir });
  }, 300_000);

  afterAll(async () => {
    await rm(work, { recursive: true, force: true });
  });

  it("had the state the pack must carry", () => {
    expect(before.exitCode).toBe(0);
    expect(before.stdout).toMatch(
      /^written before packing\ninit-ran\n\d+\.\d+\.\d+[^\n]*\nfrom-init\nstate\.txt\n$/,
    );
  });

  it("boots from a copy in another directory to the same exec results", async () => {
    const elsewhere = join(work, "elsewhere");
    await mkdir(elsewhere);
    const copy = join(elsewhere, "copy.atrium-vm");
    await copyFile(packPath, copy);
    const machine = await bootPack(copy, { dir: join(elsewhere, "unpacked") });
    try {
      expect(machine.info.root).toBe("disk");
      const result = await machine.exec(PROBE);
      expect({ exitCode: result.exitCode, stdout: result.stdout, stderr: result.stderr }).toEqual(before);
    } finally {
      await machine.stop();
    }
  }, 180_000);

  it("imports as a named machine whose writes survive its next boot", async () => {
    const otherState = join(work, "other-state");
    await importPack(packPath, "imported", { stateDir: otherState });
    const first = await bootNamedMachine("imported", { stateDir: otherState });
    try {
      expect((await first.exec(PROBE)).stdout).toBe(before.stdout);
      await first.exec("echo second boot > /root/more.txt");
    } finally {
      await first.stop();
    }
    const second = await bootNamedMachine("imported", { stateDir: otherState });
    try {
      expect((await second.exec("cat /root/more.txt")).stdout).toBe("second boot\n");
    } finally {
      await second.stop();
    }
  }, 240_000);
});

describe.skipIf(SKIP_VM_SUITES)("a pack that carries a snapshot", () => {
  let work: string;

  beforeAll(async () => {
    work = await mkdtemp(join(tmpdir(), "atrium-pack-snapshot-"));
  });

  afterAll(async () => {
    await rm(work, { recursive: true, force: true });
  });

  it("resumes where it was packed, or boots afresh when asked", async () => {
    const snapshot = join(work, "machine.snapshot");
    const machine = await Machine.create({ image: "busybox" }, { root: "disk" });
    try {
      await machine.exec("echo packed-state > /root/s; sleep 600 > /dev/null 2>&1 & echo $! > /root/pid");
      await machine.snapshot(snapshot);
    } finally {
      await machine.stop();
    }
    const out = join(work, "resumable.atrium-vm");
    const manifest = await packMachine({ config: { image: "busybox" }, out, snapshot });
    expect(manifest.sections.map((section) => section.name)).toEqual([
      "config",
      "kernel",
      "initramfs",
      "agent",
      "rootfs",
      "snapshot",
    ]);
    const dir = join(work, "run");
    const restored = await bootPack(out, { dir });
    try {
      expect(restored.info.restoredFrom).toBe(join(dir, "machine.snapshot"));
      expect((await restored.exec("cat /root/s; kill -0 $(cat /root/pid) && echo running")).stdout).toBe(
        "packed-state\nrunning\n",
      );
    } finally {
      await restored.stop();
    }
    const fresh = await bootPack(out, { dir: join(work, "fresh"), fresh: true });
    try {
      expect(fresh.info.restoredFrom).toBeUndefined();
      expect((await fresh.exec("cat /root/s")).stderr).toBe(
        "cat: can't open '/root/s': No such file or directory\n",
      );
    } finally {
      await fresh.stop();
    }
  }, 300_000);

  it("refuses a snapshot it could not restore, saying why", async () => {
    const snapshot = join(work, "memory-root.snapshot");
    const machine = await Machine.create({ image: "busybox" }, { root: "memory" });
    try {
      await machine.snapshot(snapshot);
    } finally {
      await machine.stop();
    }
    await expect(
      packMachine({ config: { image: "busybox" }, out: join(work, "refused.atrium-vm"), snapshot }),
    ).rejects.toThrow(
      `snapshot: ${snapshot} cannot go in this pack: its machine had its root in memory; take it of a machine created with { root: "disk" }`,
    );
  }, 300_000);
});
