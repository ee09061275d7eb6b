import {
  chmod,
  lchown,
  link,
  lstat,
  mkdir,
  readdir,
  readlink,
  rm,
  symlink,
  writeFile,
} from "node:fs/promises";
import { join, normalize, posix } from "node:path";
import { ImageFormatError } from "../errors.js";
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
    if (path.split("/").includes(".."))
      throw new ImageFormatError(`${what}: entry ${path} climbs out of the root`);
    return normalize(`/${path}`).replace(/\/+$/, "");
  };
  for (const entry of entries) {
    const path = inside(entry.path);
    const base = path.slice(path.lastIndexOf("/") + 1);
    const dir = path.slice(0, path.lastIndexOf("/"));
    if (base === OPAQUE) {
      const target = underRoot(root, await resolveInRoot(root, dir), what);
      for (const child of await readdir(target).catch(() => [] as string[]))
        await rm(join(target, child), { recursive: true, force: true });
    } else if (base.startsWith(WHITEOUT)) {
      // `.wh...` names `..`: without this check it deleted the directory above the image root.
      const name = base.slice(WHITEOUT.length);
      if (name === "" || name === "." || name === "..")
        throw new ImageFormatError(`${what}: whiteout ${path} names no file of its directory; refused`);
      await rm(underRoot(root, join(await resolveInRoot(root, dir), name), what), {
        recursive: true,
        force: true,
      });
    }
  }
  for (const entry of entries) {
    const path = inside(entry.path);
    if (path === "") continue;
    const base = path.slice(path.lastIndexOf("/") + 1);
    if (base.startsWith(WHITEOUT)) continue;
    // The parent is resolved inside the root: a symlink from an earlier layer (/bin -> usr/bin,
    // or a hostile /etc -> /home/user) is followed as the guest would, never out onto the host.
    const parent = await resolveInRoot(root, path.slice(0, path.lastIndexOf("/")));
    await mkdir(join(root, parent), { recursive: true });
    const target = underRoot(root, join(parent, base), what);
    const existing = await lstat(target).catch(() => undefined);
    if (entry.type === "dir") {
      if (existing && !existing.isDirectory()) await rm(target, { force: true });
      await mkdir(target, { recursive: true });
    } else {
      if (existing) await rm(target, { recursive: true, force: true });
      if (entry.type === "file") {
        await writeFile(target, entry.data, { mode: entry.mode & 0o777 });
      } else if (entry.type === "symlink") {
        await symlink(entry.linkName, target);
      } else if (entry.type === "hardlink") {
        // The inode is the one its file entry made, owner and mode included: nothing to set.
        await link(underRoot(root, await resolveInRoot(root, inside(entry.linkName)), what), target);
        continue;
      } else {
        continue;
      }
    }
    // Owner first, then mode: chown clears setuid and setgid bits, so the other order lost them.
    if (asRoot) await lchown(target, entry.uid, entry.gid);
    if (entry.type !== "symlink") await chmod(target, entry.mode);
  }
}

/** `path` (absolute, inside the image) as a host path, checked to be under `root`. */
function underRoot(root: string, path: string, what: string): string {
  const host = join(root, path);
  if (host !== root && !host.startsWith(`${root.replace(/\/+$/, "")}/`))
    throw new ImageFormatError(`${what}: ${path} resolves outside the image root; refused`);
  return host;
}

/**
 * `path` (absolute, inside the image) with every symlink among its components resolved as if
 * `root` were `/`: absolute targets restart at the root, `..` stops at it. Like a chroot's
 * lookup, so no layer entry can reach a host path. Missing components are kept as they are.
 */
async function resolveInRoot(root: string, path: string): Promise<string> {
  const pending = path.split("/").filter(Boolean);
  const resolved: string[] = [];
  let hops = 0;
  while (pending.length > 0) {
    const part = pending.shift() as string;
    if (part === ".") continue;
    if (part === "..") {
      resolved.pop();
      continue;
    }
    const candidate = join(root, ...resolved, part);
    const info = await lstat(candidate).catch(() => undefined);
    if (info?.isSymbolicLink()) {
      if (++hops > 40) throw new ImageFormatError(`too many symlinks resolving ${path} in the image`);
      const target = await readlink(candidate);
      if (target.startsWith("/")) resolved.length = 0;
      pending.unshift(...posix.normalize(target).split("/").filter(Boolean));
      continue;
    }
    resolved.push(part);
  }
  return `/${resolved.join("/")}`;
}
