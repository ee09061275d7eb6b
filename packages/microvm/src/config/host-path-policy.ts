import { homedir } from "node:os";
import { isAbsolute, relative, resolve, sep } from "node:path";
import { ConfigError } from "@atrium/spec";
import { defaultCacheDir } from "../cache-dir.js";
import { defaultStateDir } from "./state-dir.js";

/** The per-volume key that lets a volume share a path these rules refuse. */
export const UNSAFE_HOST_PATH_KEY = "unsafe_allow_host_path";

/**
 * Directories whose whole tree belongs to the system: sharing any of them, or anything inside,
 * hands the guest (and whoever runs code in it) the host's programs, configuration, devices or
 * kernel interfaces, writable unless the volume is read-only.
 */
const SYSTEM_TREES = [
  "/etc",
  "/usr",
  "/bin",
  "/sbin",
  "/lib",
  "/lib32",
  "/lib64",
  "/libx32",
  "/boot",
  "/proc",
  "/sys",
  "/dev",
  "/run",
  "/var/run",
  "/var/lib",
  "/var/log",
  "/var/spool",
  "/var/mail",
  "/var/cache",
  "/snap",
];

/**
 * Directories that are fine to share something inside of, but not whole: they hold every user's
 * files, every program's temporary files (other machines' sockets among them), or mount points.
 */
const SHARED_ROOTS = ["/", "/root", "/home", "/var", "/tmp", "/var/tmp", "/mnt", "/media", "/opt", "/srv"];

const within = (path: string, dir: string) =>
  path === dir || path.startsWith(dir === "/" ? "/" : `${dir}${sep}`);

/**
 * Why a volume's host path is refused, or undefined. Refused: the root, a system directory or
 * anything inside one, a directory that holds everyone's files (/home, /tmp, the user's home),
 * this package's own cache and state (kernels, other machines' disks), and secrets in the home
 * directory (~/.ssh, ~/.gnupg). `path` is absolute and already resolved (symlinks followed).
 */
export function refusedHostPath(path: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const home = homedir();
  if (SHARED_ROOTS.includes(path) || path === home) {
    return `${path} is ${path === "/" ? "the host's root directory" : "a directory that holds other users' or programs' files"}`;
  }
  const tree = SYSTEM_TREES.find((dir) => within(path, dir));
  if (tree) return `${path} is ${path === tree ? "" : `inside ${tree}, `}a system directory`;
  for (const dir of [defaultCacheDir(env), defaultStateDir(env)]) {
    if (within(path, dir) || within(dir, path))
      return `${path} holds atrium-vm's own cache or machines (${dir})`;
  }
  for (const secret of [".ssh", ".gnupg", ".aws", ".kube", ".docker"]) {
    const dir = resolve(home, secret);
    if (within(path, dir) || within(dir, path)) return `${path} holds credentials (${dir})`;
  }
  return undefined;
}

/** A relative volume path that climbs out of its base (`../../etc`): refused unless unsafeAllowHostPath. */
export function escapesBase(hostPath: string, base: string): boolean {
  if (isAbsolute(hostPath)) return false;
  const rel = relative(base, resolve(base, hostPath));
  return rel === ".." || rel.startsWith(`..${sep}`) || isAbsolute(rel);
}

export function refuseHostPath(index: number, reason: string): never {
  throw new ConfigError(
    `volumes.${index}.host: ${reason}; share a directory of your own instead, or set ${UNSAFE_HOST_PATH_KEY} = true on this volume (unsafeAllowHostPath in the TypeScript API) to share it anyway`,
  );
}
