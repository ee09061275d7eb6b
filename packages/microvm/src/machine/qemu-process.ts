import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { MissingDependencyError } from "../errors.js";
import type { QemuUser } from "./qemu-user.js";

const live = new Set<ChildProcess>();
let exitHookInstalled = false;

export interface SpawnQemuOptions {
  /**
   * Open files handed to QEMU as its fds 3, 4, ... in this order (QEMU names them /dev/fd/N or
   * an `-add-fd` set), so an unprivileged QEMU reads boot files it could not open by path.
   */
  fds?: readonly number[];
  /** The user QEMU runs as; undefined: this process's own (which is then not root). */
  user?: QemuUser;
  /** The machine has no network device: QEMU also gets an empty network namespace. */
  noNetwork?: boolean;
  /** Extra environment for QEMU (TMPDIR for a snapshot overlay). */
  env?: Record<string, string>;
  /**
   * With `user`: the only host directories QEMU may write (its run directory, read-write
   * volumes). Everything else is remounted read-only in QEMU's mount namespace.
   */
  writableDirs?: readonly string[];
  /** Cgroup directories QEMU starts in (cgroup-limits.ts); joined before QEMU is exec'd. */
  cgroupDirs?: readonly string[];
}

export interface QemuChild {
  /** The process this host started (QEMU itself, or the wrapper that waits for it). */
  process: ChildProcess;
  /** QEMU's own pid in the host's PID namespace, once known. */
  qemuPid: () => Promise<number>;
}

/**
 * Starts QEMU so that it never outlives this process and, when this process is root, never runs
 * as root. Never outliving: `setpriv --pdeathsig KILL` (util-linux) makes the kernel kill QEMU when
 * its parent dies, however it dies (`kill -9` included); an exit hook kills every QEMU still
 * running when Node exits normally; inside the guest, the agent powers off when the host end of
 * its channel closes.
 *
 * As root, the chain is `setpriv --pdeathsig KILL -- unshare --mount --pid --ipc --uts [--net]
 * --fork --kill-child --mount-proc -- sh -c READ_ONLY_HOST sh DIRS -- setpriv --reuid U
 * --regid G --clear-groups --no-new-privs -- qemu`: QEMU gets its own mount, PID, IPC and UTS
 * namespaces (and an empty network namespace when the machine has no network), a host that is
 * read-only but for DIRS, then drops to an unprivileged user with no supplementary groups and no
 * capabilities. A QEMU bug the guest exploits then lands in a process that owns nothing on the
 * host but its own run directory. Each link dies with its parent (pdeathsig, --kill-child).
 */
export function spawnQemu(
  qemuPath: string,
  args: readonly string[],
  options: SpawnQemuOptions = {},
): QemuChild {
  const setpriv = findTool(["/usr/bin/setpriv", "/bin/setpriv"]);
  const unshare = findTool(["/usr/bin/unshare", "/bin/unshare"]);
  const stdio = ["pipe", "pipe", "pipe", ...(options.fds ?? [])] as const;
  const env = { ...process.env, ...options.env };
  let argv: string[];
  if (options.user) {
    if (!setpriv || !unshare) {
      // Root without the tools to drop privileges: refuse rather than run QEMU as root.
      throw new MissingDependencyError(
        "QEMU would run as root: setpriv and unshare are missing; install them (sudo apt-get install util-linux)",
      );
    }
    argv = [
      setpriv,
      "--pdeathsig",
      "KILL",
      "--",
      unshare,
      "--mount",
      "--pid",
      "--ipc",
      "--uts",
      ...(options.noNetwork ? ["--net"] : []),
      "--fork",
      "--kill-child",
      // A /proc of its own PID namespace: QEMU sees no other process, so a compromised QEMU
      // cannot find (or, being the same uid, ptrace) another machine's QEMU.
      "--mount-proc",
      "--",
      "/bin/sh",
      "-c",
      READ_ONLY_HOST,
      "sh",
      ...(options.writableDirs ?? []),
      "--",
      setpriv,
      "--reuid",
      String(options.user.uid),
      "--regid",
      String(options.user.gid),
      ...(options.user.groups.length > 0 ? ["--groups", options.user.groups.join(",")] : ["--clear-groups"]),
      "--no-new-privs",
      "--pdeathsig",
      "KILL",
      "--",
      qemuPath,
      ...args,
    ];
  } else {
    argv = setpriv ? [setpriv, "--pdeathsig", "KILL", "--", qemuPath, ...args] : [qemuPath, ...args];
  }
  if (options.cgroupDirs && options.cgroupDirs.length > 0) {
    // The shell joins the cgroups and execs the chain above, so QEMU and everything it starts
    // are inside from their first instruction (moving QEMU after the fact would race its threads).
    const join = options.cgroupDirs.map(
      (dir) => `echo $$ > ${shellQuote(`${dir}/cgroup.procs`)} || exit 125`,
    );
    argv = ["/bin/sh", "-c", `${join.join("; ")}; exec "$@"`, "sh", ...argv];
  }
  // With setpriv, QEMU dies with its parent (pdeathsig), so it can live in a process group of its
  // own: a terminal's Ctrl-C then reaches only the host program, which decides what it means
  // (the demo stops the question, then the machine), instead of killing QEMU under a running
  // command and racing the host's own handler with "the guest agent channel closed".
  const child = spawn(argv[0] as string, argv.slice(1), {
    stdio: [...stdio],
    env,
    detached: setpriv !== undefined,
  });
  live.add(child);
  child.on("exit", () => live.delete(child));
  // A QEMU killed mid-run may reset its stdio pipes; its end is reported by "exit", and an
  // unheard stream error would crash the host.
  for (const stream of [child.stdin, child.stdout, child.stderr]) stream?.on("error", () => {});
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    process.on("exit", () => {
      for (const running of live) running.kill("SIGKILL");
    });
  }
  let found: Promise<number> | undefined;
  return {
    process: child,
    qemuPid: () => {
      found ??= options.user ? innerPid(child) : Promise.resolve(child.pid as number);
      return found;
    },
  };
}

/**
 * Runs as root inside QEMU's new mount namespace (private propagation: nothing reaches the host's
 * mounts), before the drop to QEMU's user: each writable directory (the arguments before "--")
 * becomes a bind mount of itself, then the root and the usual world-writable mounts are made
 * read-only, so a compromised QEMU writes its run directory and its volumes and nothing else
 * (not /tmp, /var/tmp or /dev/shm, which any user could otherwise fill). Fails closed: a mount
 * that cannot be made read-only stops QEMU from starting.
 */
const READ_ONLY_HOST = [
  "set -e",
  'while [ "$1" != "--" ]; do mount --bind "$1" "$1"; shift; done',
  "shift",
  "for m in / /tmp /var/tmp /dev/shm /run /run/lock /var/lock; do",
  '  if mountpoint -q "$m"; then mount -o remount,bind,ro "$m"; fi',
  "done",
  'exec "$@"',
].join("\n");

function shellQuote(word: string): string {
  return `'${word.replaceAll("'", "'\\''")}'`;
}

function findTool(paths: string[]): string | undefined {
  return paths.find((path) => existsSync(path));
}

/** QEMU's pid under the namespace wrapper: the wrapper's only child, once it has exec'd QEMU. */
async function innerPid(wrapper: ChildProcess): Promise<number> {
  const outer = wrapper.pid as number;
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline && wrapper.exitCode === null && wrapper.signalCode === null) {
    try {
      const children = readFileSync(`/proc/${outer}/task/${outer}/children`, "utf8").trim();
      const pid = Number(children.split(" ")[0]);
      if (pid > 0 && readFileSync(`/proc/${pid}/comm`, "utf8").startsWith("qemu")) return pid;
    } catch {
      // not forked yet, or already gone
    }
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  return outer;
}

/**
 * QEMU processes on this host running as `uid`, from /proc: on a root host every machine's QEMU
 * runs as QEMU's user, whichever atrium-vm process started it (see maxHostMachines).
 */
export function countQemuProcesses(uid: number): number {
  let count = 0;
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (!readFileSync(`/proc/${name}/comm`, "utf8").startsWith("qemu-system")) continue;
      const line = /^Uid:\s+(\d+)/m.exec(readFileSync(`/proc/${name}/status`, "utf8"));
      if (line && Number(line[1]) === uid) count += 1;
    } catch {
      // ended while we looked
    }
  }
  return count;
}
