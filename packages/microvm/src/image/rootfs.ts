import { lstat, mkdir, open, readdir, readFile, readlink, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { APT_PACKAGE_OF, aptCommand } from "../apt-hint.js";
import { buildOnce } from "../cache-dir.js";
import { MissingDependencyError } from "../errors.js";
import { runCommand, which } from "../run-command.js";
import { applyLayer } from "./apply-layer.js";
import { type CpioEntry, writeCpio } from "./cpio.js";
import { type ImageRuntimeConfig, loadImage } from "./oci-image.js";
import { readTar } from "./tar.js";

export interface RootFilesystem {
  /** A raw ext4 image; machines never write to it (they boot a copy or a snapshot overlay). */
  diskPath: string;
  /**
   * The same tree as a cpio archive under `atrium/root/`, appended to the boot initramfs for a
   * root in guest memory; absent for images larger than `maxMemoryRootBytes`.
   */
  archivePath?: string;
  /** Bytes the image's files take (rounded to blocks). */
  treeBytes: number;
  digest: string;
  config: ImageRuntimeConfig;
}

/** Where the memory root's files sit in the initramfs; the guest init chroots into it. */
export const MEMORY_ROOT_DIR = "atrium/root";

interface RootfsRecord {
  config: ImageRuntimeConfig;
  treeBytes: number;
  archive: boolean;
}

/**
 * The image's root filesystem, built once per image digest: layers extracted in order into a
 * staging directory (whiteouts honoured), then `mke2fs -d` writes an ext4 image from it and,
 * for a small image, the same tree is written as a cpio archive for a root in memory.
 */
export async function importImage(
  source: string,
  options: { cacheDir: string; maxLayerBytes: number; headroomBytes: number; maxMemoryRootBytes?: number },
): Promise<RootFilesystem> {
  const image = await loadImage(source, options.maxLayerBytes);
  const dir = join(options.cacheDir, "rootfs", `v2-${image.digest.slice(0, 32)}`);
  await buildOnce(dir, async (tmpDir) => {
    const mke2fs = await which("mke2fs");
    if (!mke2fs) {
      throw new MissingDependencyError(
        `mke2fs is needed to build root filesystems; install it with: ${aptCommand(APT_PACKAGE_OF.mke2fs)}`,
      );
    }
    await mkdir(tmpDir, { recursive: true });
    const staging = join(tmpDir, "staging");
    await mkdir(staging);
    try {
      for await (const layer of image.layers()) {
        const what = `${source} layer ${layer.index}`;
        await applyLayer(staging, readTar(layer.tar, what), what);
      }
      const bytes = await treeBytes(staging);
      const size = Math.ceil((bytes * 1.25 + options.headroomBytes + 32 * 1024 * 1024) / 4096) * 4096;
      const diskTmp = join(tmpDir, "root.ext4");
      const file = await open(diskTmp, "w");
      await file.truncate(size);
      await file.close();
      const result = await runCommand(
        mke2fs,
        [
          "-q",
          "-F",
          "-t",
          "ext4",
          "-b",
          "4096",
          "-L",
          "atrium-root",
          "-E",
          "root_owner=0:0",
          "-d",
          staging,
          diskTmp,
        ],
        { timeoutMs: 600_000 },
      );
      if (result.code !== 0)
        throw new MissingDependencyError(
          `mke2fs could not build the root filesystem of ${source}: ${result.stderr.trim()}`,
        );
      const archive = bytes <= (options.maxMemoryRootBytes ?? 0);
      if (archive)
        await writeFile(join(tmpDir, "root.cpio"), writeCpio(await treeEntries(staging, MEMORY_ROOT_DIR)));
      const record: RootfsRecord = { config: image.config, treeBytes: bytes, archive };
      await writeFile(join(tmpDir, "record.json"), JSON.stringify(record));
    } finally {
      await rm(staging, { recursive: true, force: true });
    }
  });
  const record = JSON.parse(await readFile(join(dir, "record.json"), "utf8")) as RootfsRecord;
  return {
    diskPath: join(dir, "root.ext4"),
    ...(record.archive ? { archivePath: join(dir, "root.cpio") } : {}),
    treeBytes: record.treeBytes,
    digest: image.digest,
    config: record.config,
  };
}

/** Every entry under `root` as cpio entries below `prefix`, with owners and modes as on disk. */
async function treeEntries(root: string, prefix: string): Promise<CpioEntry[]> {
  const asRoot = process.getuid?.() === 0;
  const entries: CpioEntry[] = [{ kind: "dir", path: prefix, mode: 0o755 }];
  const walk = async (relative: string) => {
    for (const name of (await readdir(join(root, relative))).sort()) {
      const path = relative ? `${relative}/${name}` : name;
      const full = join(root, path);
      const info = await lstat(full);
      // Without root the staging files belong to the host user; the image's are root's.
      const owner = asRoot ? { uid: info.uid, gid: info.gid } : {};
      const target = `${prefix}/${path}`;
      if (info.isDirectory()) {
        entries.push({ kind: "dir", path: target, mode: info.mode & 0o7777, ...owner });
        await walk(path);
      } else if (info.isSymbolicLink()) {
        entries.push({ kind: "symlink", path: target, target: await readlink(full), ...owner });
      } else if (info.isFile()) {
        entries.push({
          kind: "file",
          path: target,
          data: await readFile(full),
          mode: info.mode & 0o7777,
          ...owner,
        });
      }
    }
  };
  await walk("");
  return entries;
}

async function treeBytes(dir: string): Promise<number> {
  let total = 0;
  for (const name of await readdir(dir)) {
    const path = join(dir, name);
    const info = await lstat(path);
    total += 4096 + (info.isDirectory() ? await treeBytes(path) : Math.ceil(info.size / 4096) * 4096);
  }
  return total;
}
