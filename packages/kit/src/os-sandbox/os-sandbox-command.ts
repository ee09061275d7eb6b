import type { OsSandboxLimits } from "./os-sandbox-limits.js";

/** A host path the sandbox may read, at a path of its own under /atrium. */
export interface ReadOnlyMount {
  host: string;
  at: string;
}

/** What runs in the sandbox: Node on one entry file, with the paths it may read. */
export interface OsSandboxProgram {
  /**
   * Host folder of the program's files (self-contained ESM bundles, `.mjs`): mounted read-only
   * at /atrium/app, so an entry can start a worker from a file beside it.
   */
  dir: string;
  /** The file in `dir` that Node runs. */
  main: string;
  /** More read-only paths (a package's data directory, say), each under /atrium. */
  mounts?: readonly ReadOnlyMount[];
  /** Arguments after the entry. */
  args?: readonly string[];
  /** Lets the program start worker threads (Node's `--allow-worker`); child processes never. */
  allowWorker?: boolean;
  /**
   * Node's permission model inside the sandbox (default true). Off only to test what the
   * operating system's layers hold on their own.
   */
  permissionModel?: boolean;
}

/** Where the host's tools are, and who it is: decided once by the launcher. */
export interface OsSandboxHost {
  /** Closes the file descriptors the host inherited before anything else starts (see below). */
  bash: string;
  bwrap: string;
  prlimit: string;
  /** Present when the host runs as root: the sandbox drops to `uid` with it. */
  setpriv?: string;
  nodePath: string;
  /** The unprivileged uid (and gid) the sandbox runs as when the host is root. */
  uid?: number;
}

export const SANDBOX_ROOT = "/atrium";
export const SANDBOX_APP = `${SANDBOX_ROOT}/app`;
/** The sandbox's copy of the Node binary when the host's lies outside /usr. */
const SANDBOX_NODE = `${SANDBOX_ROOT}/bin/node`;
/** File descriptor on which bubblewrap reads the seccomp program. */
export const SECCOMP_FD = 3;

/**
 * A descriptor the host process inherited without close-on-exec (from a shell's `exec 7<file`,
 * a supervisor, a test runner) would pass through prlimit, bubblewrap and setpriv into the
 * sandbox, and with it a file, a directory (and every path under it) or a pipe of the host's.
 * Node cannot close descriptors in a child it spawns, so the first program in the chain does:
 * bash closes every descriptor above the seccomp program's, then execs the rest.
 */
const CLOSE_INHERITED_FDS = `for fd in /proc/$$/fd/*; do fd=\${fd##*/}; if [ "$fd" -gt ${SECCOMP_FD} ]; then eval "exec $fd>&-" 2>/dev/null; fi; done; exec "$@"`;

/**
 * The command line that starts `program` in an OS sandbox: prlimit (resource limits) around
 * bubblewrap (namespaces: no network, its own PID, IPC, UTS and cgroup views; a root
 * filesystem of only the runtime and the mounts, read-only; an empty environment; a seccomp
 * filter; death with its parent), then, when the host is root, setpriv down to an unprivileged
 * uid with no capabilities and no way to regain them, then Node under its permission model
 * (reads of /atrium only, no child processes, no addons, workers only when asked).
 */
export function osSandboxCommand(
  program: OsSandboxProgram,
  host: OsSandboxHost,
  limits: OsSandboxLimits,
): { command: string; args: string[] } {
  if (program.main.includes("/") || program.main.startsWith(".")) {
    throw new Error(`a sandbox program's main must be a file name in its folder, got ${program.main}`);
  }
  for (const mount of program.mounts ?? []) {
    const inside = mount.at.startsWith(`${SANDBOX_ROOT}/`) && !mount.at.split("/").includes("..");
    if (!inside || mount.at === SANDBOX_APP || mount.at.startsWith(`${SANDBOX_APP}/`)) {
      throw new Error(
        `a sandbox mount must be a path under ${SANDBOX_ROOT}/ other than ${SANDBOX_APP}, got ${mount.at}`,
      );
    }
  }
  const nodeInUsr = host.nodePath.startsWith("/usr/");
  const node = nodeInUsr ? host.nodePath : SANDBOX_NODE;
  const rlimits = [
    `--data=${limits.maxMemoryBytes}`,
    `--cpu=${limits.maxCpuSeconds}`,
    // RLIMIT_NPROC counts every process of the uid, and a user namespace is charged up to its
    // creator: only a uid of the sandbox's own (a root host hands one out) makes it a limit on
    // the sandbox rather than on everything its user runs.
    ...(host.setpriv ? [`--nproc=${limits.maxProcesses}`] : []),

    `--nofile=${limits.maxOpenFiles}`,
    "--core=0",
  ];
  const bwrap = [
    "--unshare-ipc",
    "--unshare-pid",
    "--unshare-net",
    "--unshare-uts",
    "--unshare-cgroup-try",
    // Without root, namespaces need a user namespace, and the sandbox may not make another.
    ...(host.setpriv ? [] : ["--unshare-user", "--disable-userns"]),
    "--hostname",
    "sandbox",
    "--die-with-parent",
    "--new-session",
    "--clearenv",
    // Folders bubblewrap makes on its own are 0700: the unprivileged uid could not enter them.
    ...["/usr", "/usr/bin"].flatMap((dir) => ["--perms", "0755", "--dir", dir]),
    "--ro-bind",
    "/usr/lib",
    "/usr/lib",
    // The dynamic loader's path on x86-64 (/lib64/ld-linux-x86-64.so.2) goes through /usr/lib64.
    "--ro-bind-try",
    "/usr/lib64",
    "/usr/lib64",
    ...(nodeInUsr ? ["--ro-bind", host.nodePath, host.nodePath] : []),
    ...(host.setpriv ? ["--ro-bind", host.setpriv, host.setpriv] : []),
    "--symlink",
    "usr/lib",
    "/lib",
    "--symlink",
    "usr/lib64",
    "/lib64",
    "--proc",
    "/proc",
    // Only the devices a runtime needs: bubblewrap's own /dev would add a pseudo-terminal
    // multiplexer (/dev/ptmx), and with it the host-wide count of terminals to use up.
    "--perms",
    "0755",
    "--dir",
    "/dev",
    ...["null", "zero", "random", "urandom"].flatMap((device) => [
      "--dev-bind",
      `/dev/${device}`,
      `/dev/${device}`,
    ]),

    "--perms",
    "0755",
    "--dir",
    SANDBOX_ROOT,
    ...(nodeInUsr
      ? []
      : ["--perms", "0755", "--dir", `${SANDBOX_ROOT}/bin`, "--ro-bind", host.nodePath, SANDBOX_NODE]),
    "--ro-bind",
    program.dir,
    SANDBOX_APP,
    ...(program.mounts ?? []).flatMap((mount) => ["--ro-bind", mount.host, mount.at]),
    // The root bubblewrap builds is a tmpfs: read-only, or a guest could fill memory through it.
    "--remount-ro",
    "/",
    "--chdir",
    SANDBOX_ROOT,
    "--seccomp",
    String(SECCOMP_FD),
  ];
  const drop =
    host.setpriv && host.uid !== undefined
      ? [
          host.setpriv,
          `--reuid=${host.uid}`,
          `--regid=${host.uid}`,
          "--clear-groups",
          "--inh-caps=-all",
          "--bounding-set=-all",
          "--no-new-privs",
          "--",
        ]
      : [];
  const permissions =
    program.permissionModel === false
      ? []
      : [
          "--experimental-permission",
          `--allow-fs-read=${SANDBOX_ROOT}/*`,
          ...(program.allowWorker ? ["--allow-worker"] : []),
          "--disable-warning=ExperimentalWarning",
        ];
  const nodeFlags = [...permissions, "--no-addons"];
  return {
    command: host.bash,
    args: [
      // Its stdin is a socket, which bash takes for a remote shell and would read ~/.bashrc for.
      "--norc",
      "--noprofile",
      "-c",

      CLOSE_INHERITED_FDS,
      "close-inherited-fds",
      host.prlimit,
      ...rlimits,
      "--",
      host.bwrap,
      ...bwrap,
      "--",
      ...drop,
      node,
      ...nodeFlags,
      `${SANDBOX_APP}/${program.main}`,
      ...(program.args ?? []),
    ],
  };
}
