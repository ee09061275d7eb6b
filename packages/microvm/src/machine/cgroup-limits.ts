import { readFileSync } from "node:fs";
import { access, mkdir, readdir, rmdir, writeFile } from "node:fs/promises";
import { join } from "node:path";

/** Per-machine cgroup (v1 or v2) directories QEMU is placed in, and what they cap. */
export interface MachineCgroup {
  /** The directories whose `cgroup.procs` QEMU's wrapper joins before QEMU starts. */
  dirs: string[];
  /** Removes the directories (after QEMU has exited). */
  remove(): Promise<void>;
}

export interface CgroupCaps {
  /** Guest memory plus QEMU's own (TCG's translation cache, devices). */
  memoryBytes: number;
  /** Tasks: QEMU's threads, and relay processes of an allow-list. */
  pids: number;
  /** Host CPUs' worth of time: the machine's vCPUs. */
  cpus: number;
}

const ROOT = "/sys/fs/cgroup";
let sequence = 0;

/**
 * A cgroup of its own for one machine's QEMU, when the host lets this process make one (root
 * with cgroupfs mounted writable): memory, task and CPU-time caps, so one guest cannot take the
 * host's memory or fork QEMU's relays without end. Undefined when the host does not allow it
 * (not root, cgroupfs read-only, a controller missing): the machine then runs without, and
 * `Machine.info.cgroup` says so.
 */
export async function createMachineCgroup(caps: CgroupCaps): Promise<MachineCgroup | undefined> {
  if (process.getuid?.() !== 0) return undefined;
  const name = `atrium-vm-${process.pid}-${++sequence}`;
  const own = ownCgroups();
  const made: string[] = [];
  try {
    if (own.has("")) {
      // cgroup v2: one directory, every controller the parent delegates.
      await sweepStale(join(ROOT, own.get("") as string));
      const dir = join(ROOT, own.get("") as string, name);
      await mkdir(dir);
      made.push(dir);
      await writeFile(join(dir, "memory.max"), String(caps.memoryBytes));
      await writeFile(join(dir, "pids.max"), String(caps.pids));
      await writeFile(join(dir, "cpu.max"), `${caps.cpus * 100_000} 100000`);
    } else {
      const limits: [string, string, string][] = [
        ["memory", "memory.limit_in_bytes", String(caps.memoryBytes)],
        ["pids", "pids.max", String(caps.pids)],
        ["cpu", "cpu.cfs_quota_us", String(caps.cpus * 100_000)],
      ];
      for (const [controller, file, value] of limits) {
        const base = join(ROOT, controller, own.get(controller) ?? "/");
        await access(base);
        await sweepStale(base);
        const dir = join(base, name);
        await mkdir(dir);
        made.push(dir);
        if (controller === "cpu") await writeFile(join(dir, "cpu.cfs_period_us"), "100000");
        await writeFile(join(dir, file), value);
      }
    }
  } catch {
    await removeAll(made);
    return undefined;
  }
  return { dirs: made, remove: () => removeAll(made) };
}

/** This process's cgroup path per v1 controller ("" for the v2 hierarchy). */
function ownCgroups(): Map<string, string> {
  const paths = new Map<string, string>();
  let text = "";
  try {
    text = readFileSync("/proc/self/cgroup", "utf8");
  } catch {
    return paths;
  }
  const lines = text.trim().split("\n");
  const v1 = lines.some((line) => !line.startsWith("0::"));
  for (const line of lines) {
    const [, controllers, path] = line.split(":") as [string, string, string];
    if (!v1 && controllers === "") paths.set("", path);
    for (const controller of controllers.split(",")) if (controller) paths.set(controller, path);
  }
  return paths;
}

/**
 * Removes the empty cgroups of atrium-vm processes that are gone: a host process killed with
 * SIGKILL never removes its own (QEMU dies with it, so they are empty).
 */
async function sweepStale(base: string): Promise<void> {
  const names = await readdir(base).catch(() => [] as string[]);
  for (const entry of names) {
    const owner = /^atrium-vm-(\d+)-\d+$/.exec(entry)?.[1];
    if (owner && !isAlive(Number(owner))) await rmdir(join(base, entry)).catch(() => {});
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

async function removeAll(dirs: readonly string[]): Promise<void> {
  for (const dir of [...dirs].reverse()) await rmdir(dir).catch(() => {});
}
