import { chown, stat } from "node:fs/promises";
import { join } from "node:path";
import { APT_PACKAGE_OF, aptCommand } from "../apt-hint.js";
import { MissingDependencyError } from "../errors.js";
import { runCommand, which } from "../run-command.js";
import { copyRangeToFile } from "./file-range.js";
import type { QemuUser } from "./qemu-user.js";

/** qemu-img on a sparse overlay or a disk of a few GiB takes well under this. */
const QEMU_IMG_TIMEOUT_MS = 120_000;

/** The overlay's file name in a machine's run directory. */
export const OVERLAY_FILE = "disk-overlay.qcow2";

async function qemuImg(): Promise<string> {
  const path = await which("qemu-img");
  if (!path)
    throw new MissingDependencyError(
      `qemu-img is needed for a machine's disk overlay; install it with: ${aptCommand(APT_PACKAGE_OF.qemuImg)}`,
    );
  return path;
}

async function run(args: string[], what: string): Promise<void> {
  const result = await runCommand(await qemuImg(), args, { timeoutMs: QEMU_IMG_TIMEOUT_MS });
  if (result.code !== 0)
    throw new MissingDependencyError(
      `qemu-img could not ${what}: ${result.stderr.trim() || `exit ${result.code}`}`,
    );
}

/**
 * A qcow2 overlay for a disk of `baseBytes`, empty: the guest's writes land here and reads of
 * unwritten clusters fall through to the image's shared ext4. Made without a backing file name
 * (QEMU is told the backing node at start, see qemuArgs), so the file names no host path and
 * can travel in a snapshot; the base is the image's disk, found by digest where it is restored.
 */
export async function createOverlay(
  runDir: string,
  baseBytes: number,
  user: QemuUser | undefined,
): Promise<string> {
  const path = join(runDir, OVERLAY_FILE);
  await run(["create", "-q", "-f", "qcow2", path, String(baseBytes)], `create the overlay ${path}`);
  if (user) await chown(path, user.uid, user.gid);
  return path;
}

/**
 * A named machine's whole disk (raw, written in place) as a standalone qcow2 for a snapshot:
 * only its allocated clusters are stored.
 */
export async function convertDiskToQcow2(diskPath: string, outPath: string): Promise<void> {
  // -U (force share): the machine's QEMU still holds the disk's write lock, but its guest is
  // stopped at the end of the migration and its disk flushed, so the copy is consistent.
  await run(
    ["convert", "-q", "-U", "-f", "raw", "-O", "qcow2", diskPath, outPath],
    `copy the disk ${diskPath}`,
  );
}

export async function fileBytes(path: string): Promise<number> {
  return (await stat(path)).size;
}

/** Where a restored machine's disk overlay comes from: a section of the snapshot file. */
export interface OverlayFromSnapshot {
  file: string;
  section: { offset: number; size: number };
  /** "image": over the image's ext4; "none": the section is the whole disk. */
  base: "image" | "none";
}

/**
 * The overlay a machine with a disk root boots with: a fresh one, or the snapshot's copied into
 * the run directory (each restore and fork gets its own copy, so none sees another's writes).
 * None for a memory root, or for a named machine's own disk, which it writes in place.
 */
export async function prepareOverlay(
  disk: { root: "memory" | "disk"; baseDiskPath: string; persistent: boolean },
  runDir: string,
  user: QemuUser | undefined,
  snapshot?: OverlayFromSnapshot,
): Promise<{ path: string; backing: boolean } | undefined> {
  if (disk.root !== "disk") return undefined;
  if (snapshot) {
    const path = join(runDir, OVERLAY_FILE);
    await copyRangeToFile(snapshot.file, snapshot.section, path);
    if (user) await chown(path, user.uid, user.gid);
    return { path, backing: snapshot.base === "image" };
  }
  if (disk.persistent) return undefined;
  return { path: await createOverlay(runDir, await fileBytes(disk.baseDiskPath), user), backing: true };
}
