import { open, rename, rm } from "node:fs/promises";
import { copyFileRange } from "./file-range.js";
import { saveGuestRam } from "./guest-ram.js";
import { saveMigrationStream } from "./migration-stream.js";
import type { QemuUser } from "./qemu-user.js";
import type { QmpClient } from "./qmp-client.js";
import {
  encodeSnapshotHeader,
  encodeSnapshotTrailer,
  SNAPSHOT_FORMAT_VERSION,
  SNAPSHOT_HEADER_BYTES,
  type SnapshotManifest,
} from "./snapshot-file.js";

/** What the manifest says beyond the sections, which are known only once written. */
export type SnapshotDescription = Omit<
  SnapshotManifest,
  "format" | "version" | "createdAt" | "state" | "ram" | "disk" | "diskBase"
>;

export interface WrittenSnapshot {
  stateBytes: number;
  diskBytes: number;
  /** When QEMU's migration completed (the guest is stopped from then on, until `cont`). */
  completedAt: number;
  /** How long QEMU stopped the guest for the last dirty pages (`query-migrate`'s downtime). */
  downtimeMs: number;
}

/**
 * Writes a snapshot file (format in snapshot-file.ts) of a machine whose QEMU answers `qmp`:
 * the migration stream straight into the file after its header, then the disk `diskAfter`
 * returns (called once the guest is stopped, so memory and disk are of one instant), then the
 * manifest, described then too (the agent channel as it is with the guest stopped). Written under a temporary name and renamed, so a failed snapshot leaves no file that
 * looks whole. The guest stays stopped: the caller continues or kills it.
 */
export async function writeSnapshot(
  path: string,
  machine: {
    qmp: QmpClient;
    runDir: string;
    user: QemuUser | undefined;
    timeoutMs: number;
    /** The guest's RAM as a memfd (guest-ram.ts): saved in its own section, not in the stream. */
    ramPath: string | undefined;
  },
  describe: () => SnapshotDescription,
  diskAfter: () => Promise<{ path: string; base: "image" | "none" } | undefined>,
): Promise<WrittenSnapshot> {
  const tmp = `${path}.tmp-${process.pid}`;
  const out = await open(tmp, "w", 0o600);
  try {
    await out.write(encodeSnapshotHeader(), 0, SNAPSHOT_HEADER_BYTES, 0);
    const stream = await saveMigrationStream(
      machine.qmp,
      machine.runDir,
      machine.user,
      out,
      SNAPSHOT_HEADER_BYTES,
      machine.timeoutMs,
      machine.ramPath !== undefined,
    );
    const completedAt = performance.now();
    const ramOffset = SNAPSHOT_HEADER_BYTES + stream.bytes;
    const ramBytes = machine.ramPath ? await saveGuestRam(machine.ramPath, out, ramOffset) : 0;
    const diskOffset = ramOffset + ramBytes;
    const disk = await diskAfter();
    const diskBytes = disk ? await copyFileRange(out, disk.path, diskOffset) : 0;
    const manifest: SnapshotManifest = {
      format: "atrium-vm-snapshot",
      version: SNAPSHOT_FORMAT_VERSION,
      createdAt: new Date().toISOString(),
      ...describe(),
      ...(disk ? { diskBase: disk.base, disk: { offset: diskOffset, size: diskBytes } } : {}),
      state: { offset: SNAPSHOT_HEADER_BYTES, size: stream.bytes },
      ...(machine.ramPath ? { ram: { offset: ramOffset, size: ramBytes } } : {}),
    };
    const trailer = encodeSnapshotTrailer(manifest);
    await out.write(trailer, 0, trailer.byteLength, diskOffset + diskBytes);
    await out.close();
    await rename(tmp, path);
    return { stateBytes: stream.bytes + ramBytes, diskBytes, completedAt, downtimeMs: stream.downtimeMs };
  } catch (error) {
    await out.close().catch(() => {});
    await rm(tmp, { force: true });
    throw error;
  }
}
