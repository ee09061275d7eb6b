import { lstat, readdir } from "node:fs/promises";
import { join } from "node:path";

/**
 * Bytes a directory tree takes on disk (allocated blocks, so a sparse file counts what it
 * really uses), symlinks not followed. 9p has no quota of its own, so this is how the host
 * measures what a guest wrote into a read-write volume.
 */
export async function directoryBytes(dir: string): Promise<number> {
  let total = 0;
  const pending = [dir];
  while (pending.length > 0) {
    const current = pending.pop() as string;
    let names: string[];
    try {
      names = await readdir(current);
    } catch {
      continue; // removed while we looked
    }
    for (const name of names) {
      const path = join(current, name);
      const info = await lstat(path).catch(() => undefined);
      if (!info) continue;
      total += info.blocks * 512;
      if (info.isDirectory()) pending.push(path);
    }
  }
  return total;
}
