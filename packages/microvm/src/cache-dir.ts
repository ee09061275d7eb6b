import { createHash } from "node:crypto";
import { mkdir, readdir, readFile, rename, rm, stat, writeFile } from "node:fs/promises";
import { homedir } from "node:os";
import { basename, dirname, join } from "node:path";

/**
 * Where built artifacts live (decompressed kernels, the guest agent, initramfs images, root
 * filesystems), each under a name derived from the content it was built from, so a cache entry
 * is never stale: a changed input has another name. Override with `ATRIUM_VM_CACHE`.
 */
export function defaultCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.ATRIUM_VM_CACHE) return env.ATRIUM_VM_CACHE;
  const base = env.XDG_CACHE_HOME || join(homedir(), ".cache");
  return join(base, "atrium", "microvm");
}

export function sha256Hex(data: string | Uint8Array): string {
  return createHash("sha256").update(data).digest("hex");
}

export async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch {
    return false;
  }
}

/**
 * Builds `path` once: `build` writes to a temporary name beside it, which is renamed into place
 * only when complete, so an interrupted build (or two processes racing) never leaves a half
 * file under the final name. The temporary name carries this process's PID, so concurrent
 * builds never share one, and what a killed process left behind is removed by the next build.
 */
export async function buildOnce(path: string, build: (tmpPath: string) => Promise<void>): Promise<string> {
  if (await exists(path)) return path;
  const dir = dirname(path);
  await mkdir(dir, { recursive: true });
  await removeAbandonedTemps(dir, basename(path));
  const tmp = `${path}.tmp-${process.pid}-${Math.random().toString(36).slice(2)}`;
  try {
    await build(tmp);
    try {
      await rename(tmp, path);
    } catch (error) {
      // A directory cannot replace another: a concurrent build finished first, and its result
      // (built from the same inputs) stands.
      const code = (error as NodeJS.ErrnoException).code;
      if (!((code === "ENOTEMPTY" || code === "EEXIST") && (await exists(path)))) throw error;
    }
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }
  return path;
}

/**
 * Removes `<name>.tmp-<pid>-*` entries left by a process that is gone (killed mid-build: no
 * `finally` ran) and untouched for ABANDONED_MS: a cache shared with another PID namespace (a
 * container, another host) may hold a build in progress whose PID means nothing here.
 */
async function removeAbandonedTemps(dir: string, name: string): Promise<void> {
  const prefix = `${name}.tmp-`;
  for (const entry of await readdir(dir)) {
    if (!entry.startsWith(prefix)) continue;
    const pid = Number(entry.slice(prefix.length).split("-")[0]);
    if (!Number.isInteger(pid) || pid <= 0 || processAlive(pid)) continue;
    const path = join(dir, entry);
    const info = await stat(path).catch(() => undefined);
    if (info && Date.now() - info.mtimeMs > ABANDONED_MS) await rm(path, { recursive: true, force: true });
  }
}

const ABANDONED_MS = 10 * 60_000;

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: alive, but another user's.
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * A value computed from a file (its hash, the version a binary prints), remembered on disk under
 * the file's path, size and modification time, so later processes skip the work (hashing an
 * 8 MB kernel, starting QEMU to ask its version) while a replaced file is computed afresh.
 */
export async function memoByFile(
  cacheDir: string,
  kind: string,
  path: string,
  compute: () => Promise<string>,
): Promise<string> {
  const info = await stat(path);
  const key = sha256Hex(`${path}\n${info.size}\n${info.mtimeMs}\n${info.ino}`).slice(0, 32);
  const record = join(cacheDir, "memo", kind, key);
  try {
    return await readFile(record, "utf8");
  } catch {
    const value = await compute();
    await buildOnce(record, (tmp) => writeFile(tmp, value));
    return value;
  }
}
