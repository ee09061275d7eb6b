import { execFileSync, spawnSync } from "node:child_process";
import { readFileSync, readlinkSync } from "node:fs";
import {
  chmod,
  chown,
  lstat,
  mkdir,
  mkdtemp,
  readFile,
  rm,
  stat,
  symlink,
  writeFile,
} from "node:fs/promises";
import { availableParallelism, tmpdir } from "node:os";
import { join } from "node:path";
import { LimitError } from "@atrium/spec";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadVmConfig } from "../src/config/vm-config.js";
import { Machine, prepareBoot } from "../src/index.js";
import { SKIP_VM_SUITES } from "./vm-available.js";

// The host side of the micro-VM boundary (issue 24): what a guest's root can do to the host
// through QEMU and its volumes, and what a config may ask of the host. Real guests throughout.

const asRoot = process.getuid?.() === 0;
/** The user a root host runs QEMU as (qemu-user.ts); otherwise QEMU runs as this process's user. */
const QEMU_UID = asRoot ? 65534 : (process.getuid?.() as number);
/**
 * Why a check of the root host's confinement skips for another user: only a root host process
 * drops QEMU to 65534 inside namespaces of its own, a read-only host and a cgroup (qemu-process.ts,
 * cgroup-limits.ts); any other user's QEMU runs as that user, with none of them to check. CI runs
 * as root, so these run there.
 */
const ROOT_ONLY = (what: string) =>
  `only a root host process ${what}; run the suite as root (as CI does) to check it`;

function statusLine(pid: number, key: string): string {
  const line = readFileSync(`/proc/${pid}/status`, "utf8")
    .split("\n")
    .find((l) => l.startsWith(`${key}:`));
  return (line ?? "").replace(/\s+/g, " ").trim();
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe.skipIf(SKIP_VM_SUITES)("the host boundary", () => {
  // One machine for the file, with a read-write and a read-only volume, network off.
  let machine: Machine;
  let work: string;
  let rw: string;

  beforeAll(async () => {
    work = await mkdtemp(join(tmpdir(), "atrium-vm-boundary-"));
    await chmod(work, 0o711); // QEMU's user passes through, lists nothing
    rw = join(work, "rw");
    await mkdir(rw);
    await mkdir(join(work, "ro"));
    await writeFile(join(work, "ro", "given.txt"), "from the host\n");
    await chmod(join(work, "ro"), 0o755);
    if (asRoot) await chown(rw, 65534, 65534); // QEMU's user writes the volume
    machine = await Machine.create({
      image: "busybox",
      volumes: [
        { host: rw, guest: "/w" },
        { host: join(work, "ro"), guest: "/ro", readonly: true },
      ],
    });
  }, 180_000);

  afterAll(async () => {
    await machine?.stop();
    await rm(work, { recursive: true, force: true });
  });

  describe("QEMU", () => {
    it("never runs as root: an unprivileged uid, no groups but KVM's, no capabilities, no_new_privs, seccomp", () => {
      const pid = machine.info.qemuPid;
      expect(readFileSync(`/proc/${pid}/comm`, "utf8")).toBe("qemu-system-x86\n");
      expect(statusLine(pid, "Uid")).toBe(`Uid: ${QEMU_UID} ${QEMU_UID} ${QEMU_UID} ${QEMU_UID}`);
      expect(statusLine(pid, "Uid")).not.toMatch(/ 0( |$)/);
      expect(machine.info.qemuUid).toBe(QEMU_UID);
      expect(statusLine(pid, "CapEff")).toBe("CapEff: 0000000000000000");
      expect(statusLine(pid, "NoNewPrivs")).toBe(asRoot ? "NoNewPrivs: 1" : statusLine(pid, "NoNewPrivs"));
      expect(statusLine(pid, "Seccomp")).toBe("Seccomp: 2");
    });

    it("runs in its own mount, PID, IPC, UTS and (network off) network namespaces", (context) => {
      if (!asRoot) return context.skip(ROOT_ONLY("gives QEMU namespaces of its own (unshare)"));
      const pid = machine.info.qemuPid;
      for (const ns of ["mnt", "pid", "ipc", "uts", "net"]) {
        expect(readlinkSync(`/proc/${pid}/ns/${ns}`), ns).not.toBe(readlinkSync(`/proc/self/ns/${ns}`));
      }
      // PID 1 of its own namespace, with a /proc of that namespace: it sees itself as process 1
      // and nothing of the host's (where /proc/1 is the host's init).
      expect(statusLine(pid, "NSpid")).toBe(`NSpid: ${pid} 1`);
      const inside = execFileSync("nsenter", ["-t", String(pid), "-m", "-p", "--", "cat", "/proc/1/comm"]);
      expect(inside.toString()).toBe("qemu-system-x86\n");
      expect(readFileSync("/proc/1/comm", "utf8")).not.toBe("qemu-system-x86\n");
    });

    it("sees the host read-only but for its run directory and read-write volumes", (context) => {
      if (!asRoot) return context.skip(ROOT_ONLY("mounts the host read-only for QEMU"));
      // What QEMU's user can write from inside QEMU's mount namespace.
      const touch = (path: string) =>
        spawnSync("nsenter", [
          "-t",
          String(machine.info.qemuPid),
          "-m",
          "--",
          "setpriv",
          "--reuid",
          "65534",
          "--regid",
          "65534",
          "--clear-groups",
          "sh",
          "-c",
          `touch ${path} && rm ${path} && echo writable`,
        ]);
      for (const dir of ["/tmp", "/var/tmp", "/dev/shm"]) {
        expect(touch(`${dir}/atrium-probe`).stderr.toString(), dir).toBe(
          `touch: cannot touch '${dir}/atrium-probe': Read-only file system\n`,
        );
      }
      expect(touch(join(rw, "atrium-probe")).stdout.toString()).toBe("writable\n");
    });

    it("keeps its run directory (the agent socket) where other machines' QEMUs cannot list it", async (context) => {
      if (!asRoot) return context.skip(ROOT_ONLY("puts QEMU's run directory under a root-owned 0711 parent"));
      const parent = join(tmpdir(), "atrium-vm-run");
      const info = await stat(parent);
      expect([info.uid, info.mode & 0o777]).toEqual([0, 0o711]);
      const listing = spawnSync("setpriv", [
        "--reuid",
        "65534",
        "--regid",
        "65534",
        "--clear-groups",
        "ls",
        parent,
      ]);
      expect(listing.stderr.toString()).toBe(`ls: cannot open directory '${parent}': Permission denied\n`);
    });
    it("runs in a cgroup of its own capping memory, tasks and CPU time", async (context) => {
      if (!asRoot) return context.skip(ROOT_ONLY("makes QEMU a cgroup capping memory, tasks and CPU time"));
      const dirs = machine.info.cgroup;
      // This host lets root make cgroups (v1 here); where it does not, info.cgroup is [] and the
      // machine runs uncapped (README, "Security").
      expect(dirs.length).toBeGreaterThan(0);
      const own = readFileSync(`/proc/${machine.info.qemuPid}/cgroup`, "utf8");
      for (const dir of dirs) expect(own).toContain(dir.slice(dir.lastIndexOf("/")));
      const caps = Object.fromEntries(
        dirs.flatMap((dir) =>
          ["memory.limit_in_bytes", "memory.max", "pids.max", "cpu.cfs_quota_us", "cpu.max"].flatMap(
            (file) => {
              try {
                return [[file, readFileSync(join(dir, file), "utf8").trim()]];
              } catch {
                return [];
              }
            },
          ),
        ),
      );
      const memory = String((256 + 1024) * 1024 * 1024);
      expect(caps).toEqual(
        "memory.max" in caps
          ? { "memory.max": memory, "pids.max": "512", "cpu.max": "100000 100000" }
          : { "memory.limit_in_bytes": memory, "pids.max": "512", "cpu.cfs_quota_us": "100000" },
      );
    });
  });

  describe("volumes (9p, mapped-xattr)", () => {
    it("keeps a guest's setuid-root program a plain file of QEMU's user on the host", async () => {
      const result = await machine.exec(
        "cp /bin/busybox /w/probe && chown 0:0 /w/probe && chmod 4755 /w/probe && stat -c '%A %u:%g' /w/probe",
      );
      expect(result).toMatchObject({ exitCode: 0, stdout: "-rwsr-xr-x 0:0\n", stderr: "" });
      const host = await stat(join(rw, "probe"));
      expect(host.mode & 0o7000).toBe(0); // no setuid, setgid or sticky bit on the host
      expect(host.mode & 0o777).toBe(0o600);
      expect(host.uid).toBe(QEMU_UID);
      expect(host.uid).not.toBe(0);
      expect(host.gid).toBe(QEMU_UID);
    });

    it("turns a guest chown to any uid into metadata the guest sees and the host does not", async () => {
      const result = await machine.exec(
        "touch /w/owned && chown 1234:5678 /w/owned && stat -c '%u:%g' /w/owned",
      );
      expect(result.stdout).toBe("1234:5678\n");
      const host = await stat(join(rw, "owned"));
      expect([host.uid, host.gid]).toEqual([QEMU_UID, QEMU_UID]);
    });

    it("never makes a guest symlink or device node a host symlink or device", async () => {
      const result = await machine.exec(
        "ln -s / /w/escape && mknod /w/null c 1 3 && readlink /w/escape && stat -c '%F' /w/null",
      );
      expect(result).toMatchObject({ exitCode: 0, stdout: "/\ncharacter special file\n" });
      const link = await lstat(join(rw, "escape"));
      expect(link.isSymbolicLink()).toBe(false);
      expect(link.isFile()).toBe(true);
      // What a host tool reading the volume finds: the target as text, not the host's root.
      expect(await readFile(join(rw, "escape"), "utf8")).toBe("/");
      const node = await lstat(join(rw, "null"));
      expect([node.isFile(), node.isCharacterDevice()]).toEqual([true, false]);
    });

    it("shows the guest sane ownership and modes for what it writes", async () => {
      const result = await machine.exec(
        "mkdir /w/d && echo hi > /w/d/f && chmod 640 /w/d/f && stat -c '%A %u:%g %n' /w/d /w/d/f && cat /w/d/f",
      );
      expect(result.stdout).toBe("drwxr-xr-x 0:0 /w/d\n-rw-r----- 0:0 /w/d/f\nhi\n");
      expect(await readFile(join(rw, "d", "f"), "utf8")).toBe("hi\n");
    });

    it("still refuses writes to a read-only volume", async () => {
      expect((await machine.exec("cat /ro/given.txt")).stdout).toBe("from the host\n");
      const write = await machine.exec("echo x > /ro/new.txt");
      expect(write.stderr).toBe("/bin/sh: can't create /ro/new.txt: Read-only file system\n");
    });
  });

  describe("config refusals", () => {
    const refusal = (reason: string) =>
      `volumes.0.host: ${reason}; share a directory of your own instead, or set unsafe_allow_host_path = true on this volume (unsafeAllowHostPath in the TypeScript API) to share it anyway`;

    it("refuses the host's root and system directories, also through a symlink", async () => {
      await expect(
        Machine.create({ image: "busybox", volumes: [{ host: "/", guest: "/h" }] }),
      ).rejects.toThrow(refusal("/ is the host's root directory"));
      await expect(
        Machine.create({ image: "busybox", volumes: [{ host: "/etc/ssl", guest: "/h", readonly: true }] }),
      ).rejects.toThrow(refusal("/etc/ssl is inside /etc, a system directory"));
      await expect(
        Machine.create({ image: "busybox", volumes: [{ host: "/usr", guest: "/h" }] }),
      ).rejects.toThrow(refusal("/usr is a system directory"));
      await symlink("/etc", join(work, "innocent"));
      await expect(
        Machine.create({ image: "busybox", volumes: [{ host: join(work, "innocent"), guest: "/h" }] }),
      ).rejects.toThrow(refusal("/etc is a system directory"));
    });

    it("refuses a config path that climbs out of the config's directory", async () => {
      const dir = join(work, "project");
      await mkdir(dir);
      await writeFile(
        join(dir, "atrium-vm.toml"),
        'image = "busybox"\nvolumes = [{ host = "../../../etc", guest = "/e" }]\n',
      );
      await expect(loadVmConfig(join(dir, "atrium-vm.toml"))).rejects.toThrow(
        refusal(`"../../../etc" climbs out of the config file's directory (${dir}) to /etc`),
      );
    });

    it("shares a refused path only with unsafe_allow_host_path = true", async () => {
      const plan = await prepareBoot({
        image: "busybox",
        volumes: [{ host: "/etc", guest: "/e", readonly: true, unsafeAllowHostPath: true }],
      });
      expect(plan.volumes).toEqual([{ tag: "vol0", hostPath: "/etc", guestPath: "/e", readonly: true }]);
    });

    it("refuses a volume QEMU's unprivileged user cannot write, naming the fix", async (context) => {
      if (!asRoot) return context.skip(ROOT_ONLY("runs QEMU as 65534, another user than the volume's owner"));
      const mine = await mkdtemp(join(tmpdir(), "atrium-vm-private-"));
      try {
        await expect(
          Machine.create({ image: "busybox", volumes: [{ host: mine, guest: "/p" }] }),
        ).rejects.toThrow(
          `volumes.0.host: ${mine} is not writable by uid 65534, the unprivileged user QEMU runs as; give it that user (chown 65534:65534 ${mine}) or run QEMU as another (ATRIUM_VM_QEMU_UID)`,
        );
      } finally {
        await rm(mine, { recursive: true });
      }
    });

    it("refuses more vCPUs than the host has, and more memory than the limit", async () => {
      const cores = availableParallelism();
      await expect(Machine.create({ image: "busybox", cpus: 64 })).rejects.toThrow(
        `cpus: 64 is more than this host's ${cores} CPU${cores === 1 ? "" : "s"}; give at most ${cores}`,
      );
      await expect(Machine.create({ image: "busybox", memory: "16G" })).rejects.toThrow(
        "memory: 16384 MiB is more than maxMachineMemoryBytes (8192 MiB); give less, or raise the limit",
      );
    });

    it("refuses a machine past maxHostMachines, counting every QEMU of its user on the host", async () => {
      const refused = Machine.create({ image: "busybox" }, { limits: { maxHostMachines: 1 } });
      await expect(refused).rejects.toBeInstanceOf(LimitError);
      // At least this file's machine; other processes' machines count too.
      await expect(refused).rejects.toThrow(
        new RegExp(
          `^this host already runs \\d+ machines? as uid ${QEMU_UID}, as many as maxHostMachines \\(1\\) allows; stop one first, or raise the limit$`,
        ),
      );
    });

    it("refuses a machine past maxRunningMachines", async () => {
      const refused = Machine.create({ image: "busybox" }, { limits: { maxRunningMachines: 1 } });
      await expect(refused).rejects.toBeInstanceOf(LimitError);
      await expect(refused).rejects.toThrow(
        "this process already runs 1 machine, as many as maxRunningMachines (1) allows; stop one first, or raise the limit",
      );
    });
  });

  it("kills a machine whose read-write volume grows past maxVolumeBytes", async () => {
    const big = join(work, "big");
    await mkdir(big);
    if (asRoot) await chown(big, 65534, 65534);
    const filler = await Machine.create(
      { image: "busybox", volumes: [{ host: big, guest: "/big" }] },
      { limits: { maxVolumeBytes: 2 * 1024 * 1024, volumeCheckIntervalMs: 100 } },
    );
    const pid = filler.info.qemuPid;
    const pending = filler.exec("dd if=/dev/zero of=/big/fill bs=1M count=64 2>/dev/null; sync; sleep 30");
    await expect(pending).rejects.toBeInstanceOf(LimitError);
    await expect(pending).rejects.toThrow(
      new RegExp(
        `^volume /big \\(${big} on the host\\) holds \\d+ bytes, past maxVolumeBytes \\(2097152\\); the machine was killed$`,
      ),
    );
    expect(isRunning(pid)).toBe(false);
    await filler.stop();
  }, 180_000);
});
