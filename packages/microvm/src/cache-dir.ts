import { createHash } from "node:crypto";
import { mkdir, readFile, rename, rm, stat, writeFile } from "node:fs/promises";
import { homedir } from "node:os";
import { join } from "node:path";

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
 * file under the final name.
 */
export async function buildOnce(path: string, build: (tmpPath: string) => Promise<void>): Promise<string> {
  if (await exists(path)) return path;
  await mkdir(join(path, ".."), { recursive: true });
  const tmp = `${path}.tmp-${process.pid}-${Math.random().toString(36).slice(2)}`;
  try {
    await build(tmp);
    await rename(tmp, path);
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }
  return path;
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
