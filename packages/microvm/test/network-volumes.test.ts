import { chmod, chown, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { type AddressInfo, createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Machine } from "../src/index.js";
import { SKIP_VM_SUITES } from "./vm-available.js";

describe.skipIf(SKIP_VM_SUITES)("a machine with the network on and volumes", () => {
  // One machine with the network on and two volumes, shared by the file.
  let machine: Machine;
  let work: string;
  let server: Server;
  let port: number;

  beforeAll(async () => {
    work = await mkdtemp(join(tmpdir(), "atrium-vm-volumes-"));
    await mkdir(join(work, "ro"));
    await mkdir(join(work, "rw"));
    await writeFile(join(work, "ro", "given.txt"), "from the host\n");
    // A root host runs QEMU as uid 65534 (qemu-user.ts): it passes through the work directory,
    // reads the read-only volume and owns the read-write one.
    await chmod(work, 0o711);
    await chmod(join(work, "ro"), 0o755);
    if (process.getuid?.() === 0) await chown(join(work, "rw"), 65534, 65534);
    server = createServer((socket) => socket.end("hello from the host\n"));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    port = (server.address() as AddressInfo).port;
    machine = await Machine.create({
      image: "busybox",
      network: { enabled: true },
      volumes: [
        { host: join(work, "ro"), guest: "/mnt/ro", readonly: true },
        { host: join(work, "rw"), guest: "/mnt/rw" },
      ],
    });
  }, 180_000);

  afterAll(async () => {
    await machine?.stop();
    server?.close();
    await rm(work, { recursive: true, force: true });
  });

  describe("network on", () => {
    it("has a configured NIC and reaches a server on the host's loopback through the gateway", async () => {
      expect((await machine.exec("ls /sys/class/net")).stdout).toBe("eth0\nlo\n");
      expect((await machine.exec("ip -4 addr show eth0 | grep -o 'inet [0-9./]*'")).stdout).toBe(
        "inet 10.0.2.15/24\n",
      );
      expect((await machine.exec(`nc -w 5 10.0.2.2 ${port} </dev/null`)).stdout).toBe(
        "hello from the host\n",
      );
    });
  });

  describe("volumes", () => {
    it("shows a read-only host directory and refuses writes to it", async () => {
      expect((await machine.exec("cat /mnt/ro/given.txt")).stdout).toBe("from the host\n");
      const write = await machine.exec("echo x > /mnt/ro/new.txt");
      expect(write.exitCode).toBe(1);
      expect(write.stderr).toBe("/bin/sh: can't create /mnt/ro/new.txt: Read-only file system\n");
    });

    it("writes through a read-write volume to the host", async () => {
      expect((await machine.exec("echo from the guest > /mnt/rw/out.txt && sync")).exitCode).toBe(0);
      expect(await readFile(join(work, "rw", "out.txt"), "utf8")).toBe("from the guest\n");
    });

    it("shows nothing else of the host", async () => {
      const result = await machine.exec(`ls ${work} 2>&1; ls /mnt`);
      expect(result.stdout).toBe(`ls: ${work}: No such file or directory\nro\nrw\n`);
    });

    it("refuses a snapshot and a fork, naming the mounted volume and what to do", async () => {
      const reason = (what: string) =>
        `${what}: this machine has the volume ${join(work, "ro")} mounted at /mnt/ro (9p), and QEMU refuses to migrate a machine with a mounted 9p export; boot it without volumes (copy files in with writeFile or atrium-vm cp) to ${what} it`;
      await expect(machine.snapshot(join(work, "refused.snapshot"))).rejects.toThrow(reason("snapshot"));
      await expect(machine.fork(2)).rejects.toThrow(reason("fork"));
      // Nothing was paused or left behind: the machine answers, and no file was written.
      expect((await machine.exec("echo still")).stdout).toBe("still\n");
      expect((await machine.exec("ls /mnt")).stdout).toBe("ro\nrw\n");
    });
  });
});
