import { lstat, mkdtemp, open, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { buildOnce } from "../cache-dir.js";
import { APT_PACKAGE_OF, aptCommand } from "../engine/apt-hint.js";
import { runCommand, which } from "../run-command.js";
import { MissingDependencyError } from "../vm-errors.js";
import { applyLayer } from "./apply-layer.js";
import { type ImageRuntimeConfig, loadImage } from "./oci-image.js";
import { readTar } from "./tar.js";

export interface RootFilesystem {
  /** A raw ext4 image; machines never write to it (they boot a copy or a snapshot overlay). */
  diskPath: string;
  digest: string;
  config: ImageRuntimeConfig;
}

/**
 * The image's root filesystem as ext4, built once per image digest: layers extracted in order
 * into a staging directory (whiteouts honoured), then `mke2fs -d` writes the filesystem from it.
 */
export async function importImage(
  source: string,
  options: { cacheDir: string; layerMaxBytes: number; headroomBytes: number },
): Promise<RootFilesystem> {
  const image = await loadImage(source, options.layerMaxBytes);
  const dir = join(options.cacheDir, "rootfs", image.digest.slice(0, 32));
  const diskPath = join(dir, "root.ext4");
  await buildOnce(diskPath, async (tmp) => {
    const mke2fs = await which("mke2fs");
    if (!mke2fs)
      throw new MissingDependencyError(
        `mke2fs is needed to build root filesystems; install it with: ${aptCommand(APT_PACKAGE_OF.mke2fs)}`,
      );
    const staging = await mkdtemp(join(dir, "..", ".staging-"));
    try {
      for await (const layer of image.layers()) {
        await applyLayer(
          staging,
          readTar(layer.tar, `${source} layer ${layer.index}`),
          `${source} layer ${layer.index}`,
        );
      }
      const bytes = await treeBytes(staging);
      const size = Math.ceil((bytes * 1.25 + options.headroomBytes + 32 * 1024 * 1024) / 4096) * 4096;
      const file = await open(tmp, "w");
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
          tmp,
        ],
        { timeoutMs: 600_000 },
      );
      if (result.code !== 0)
        throw new MissingDependencyError(
          `mke2fs could not build the root filesystem of ${source}: ${result.stderr.trim()}`,
        );
    } finally {
      await rm(staging, { recursive: true, force: true });
    }
  });
  const configPath = join(dir, "config.json");
  await buildOnce(configPath, (tmp) => writeFile(tmp, JSON.stringify(image.config)));
  return { diskPath, digest: image.digest, config: JSON.parse(await readFile(configPath, "utf8")) };
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
