import { chmod, lchown, link, lstat, mkdir, readdir, rm, symlink, writeFile } from "node:fs/promises";
import { dirname, join, normalize } from "node:path";
import { ImageFormatError } from "../vm-errors.js";
import type { TarEntry } from "./tar.js";

const WHITEOUT = ".wh.";
const OPAQUE = ".wh..wh..opq";

/**
 * Applies one layer onto `root`, OCI style: `.wh.NAME` deletes NAME from the layers below,
 * `.wh..wh..opq` empties its directory of what the layers below put there (both before this
 * layer's own entries land). Paths that climb out of the root are refused. Ownership is kept
 * when the host runs as root; device nodes are skipped (the guest mounts devtmpfs on /dev).
 */
export async function applyLayer(root: string, entries: readonly TarEntry[], what: string): Promise<void> {
  const asRoot = process.getuid?.() === 0;
  const inside = (path: string) => {
    const clean = normalize(`/${path}`).replace(/\/+$/, "");
    if (clean.split("/").includes(".."))
      throw new ImageFormatError(`${what}: entry ${path} climbs out of the root`);
    return clean;
  };
  for (const entry of entries) {
    const path = inside(entry.path);
    const base = path.slice(path.lastIndexOf("/") + 1);
    const dir = path.slice(0, path.lastIndexOf("/"));
    if (base === OPAQUE) {
      const target = join(root, dir);
      for (const child of await readdir(target).catch(() => [] as string[]))
        await rm(join(target, child), { recursive: true, force: true });
    } else if (base.startsWith(WHITEOUT)) {
      await rm(join(root, dir, base.slice(WHITEOUT.length)), { recursive: true, force: true });
    }
  }
  for (const entry of entries) {
    const path = inside(entry.path);
    if (path === "") continue;
    const base = path.slice(path.lastIndexOf("/") + 1);
    if (base.startsWith(WHITEOUT)) continue;
    const target = join(root, path);
    await mkdir(dirname(target), { recursive: true });
    const existing = await lstat(target).catch(() => undefined);
    if (entry.type === "dir") {
      if (existing && !existing.isDirectory()) await rm(target, { force: true });
      await mkdir(target, { recursive: true });
      await chmod(target, entry.mode);
    } else {
      if (existing) await rm(target, { recursive: true, force: true });
      if (entry.type === "file") {
        await writeFile(target, entry.data, { mode: entry.mode });
        await chmod(target, entry.mode);
      } else if (entry.type === "symlink") {
        await symlink(entry.linkName, target);
      } else if (entry.type === "hardlink") {
        await link(join(root, inside(entry.linkName)), target);
      } else {
        continue;
      }
    }
    if (asRoot) await lchown(target, entry.uid, entry.gid);
  }
}
