import { type FileHandle, open } from "node:fs/promises";
import type { Accelerator } from "../boot/qemu-args.js";
import type { VmConfig } from "../config/vm-config.js";
import { SnapshotFormatError } from "../errors.js";

/**
 * The snapshot file, version 1 (integers big-endian):
 *
 *   magic "ATRIUM-VM-SNAP\n\0" (16) | u32 format version
 *   | the state section: QEMU's migration stream (CPUs, devices, and memory unless the next
 *     section holds it), as QEMU wrote it
 *   | the RAM section (a TCG guest): records `u64 offset | u32 length | bytes` of non-zero RAM
 *   | the disk section (absent for a machine whose root is in memory): a qcow2 file
 *   | manifest (JSON, UTF-8) | u32 manifest length | magic (16)
 *
 * The manifest comes last because the state's length is known only once QEMU has written it,
 * and the stream goes straight into the file, never through a second copy.
 */
export const SNAPSHOT_MAGIC = Buffer.from("ATRIUM-VM-SNAP\n\0", "latin1");
export const SNAPSHOT_FORMAT_VERSION = 1;
export const SNAPSHOT_HEADER_BYTES = SNAPSHOT_MAGIC.byteLength + 4;
const TRAILER_BYTES = 4 + SNAPSHOT_MAGIC.byteLength;
/** A manifest holds a config and a few ids: far below this. */
const MAX_MANIFEST_BYTES = 4 * 1024 * 1024;

export interface SnapshotSection {
  offset: number;
  size: number;
}

export interface SnapshotManifest {
  format: "atrium-vm-snapshot";
  version: typeof SNAPSHOT_FORMAT_VERSION;
  createdAt: string;
  /** The machine's config: a restore boots QEMU with the same devices, memory and network policy. */
  config: VmConfig;
  imageDigest: string;
  kernelRelease: string;
  accelerator: Accelerator;
  root: "memory" | "disk";
  /** "image": the disk section is an overlay over the image's ext4; "none": it is the whole disk. */
  diskBase?: "image" | "none";
  state: SnapshotSection;
  /**
   * The guest's RAM as records of its non-zero blocks (guest-ram.ts), when it was left out of
   * the state (a TCG guest's memfd RAM); restored by writing it into the new QEMU's RAM.
   */
  ram?: SnapshotSection;
  disk?: SnapshotSection;
  /**
   * The agent channel as it was: the next request id, and the ids of commands still running
   * in the guest (a restored machine can `attach` to them, e.g. a harness waiting on a tool call).
   */
  channel: {
    nextId: number;
    runningExecs: number[];
    /** base64 of a guest frame's first bytes, when the guest was stopped while sending it. */
    partialFrame?: string;
  };
  /** What the caller asked to keep with the snapshot (JSON), e.g. the tool call being waited on. */
  note?: unknown;
}

export function encodeSnapshotHeader(): Buffer {
  const header = Buffer.alloc(SNAPSHOT_HEADER_BYTES);
  SNAPSHOT_MAGIC.copy(header, 0);
  header.writeUInt32BE(SNAPSHOT_FORMAT_VERSION, SNAPSHOT_MAGIC.byteLength);
  return header;
}

export function encodeSnapshotTrailer(manifest: SnapshotManifest): Buffer {
  const json = Buffer.from(JSON.stringify(manifest), "utf8");
  const tail = Buffer.alloc(TRAILER_BYTES);
  tail.writeUInt32BE(json.byteLength, 0);
  SNAPSHOT_MAGIC.copy(tail, 4);
  return Buffer.concat([json, tail]);
}

/** Reads and checks a snapshot's manifest; the error names the file and what to do. */
export async function readSnapshotManifest(path: string): Promise<SnapshotManifest> {
  let file: FileHandle;
  try {
    file = await open(path, "r");
  } catch (error) {
    throw new SnapshotFormatError(`${path}: cannot open the snapshot (${(error as Error).message})`);
  }
  try {
    const size = (await file.stat()).size;
    const bad = (what: string) =>
      new SnapshotFormatError(
        `${path} is not a usable atrium-vm snapshot: ${what}; take it again with machine.snapshot() or atrium-vm snapshot`,
      );
    if (size < SNAPSHOT_HEADER_BYTES + TRAILER_BYTES) throw bad(`only ${size} bytes`);
    const header = Buffer.alloc(SNAPSHOT_HEADER_BYTES);
    await file.read(header, 0, header.byteLength, 0);
    if (!header.subarray(0, SNAPSHOT_MAGIC.byteLength).equals(SNAPSHOT_MAGIC)) throw bad("no snapshot magic");
    const version = header.readUInt32BE(SNAPSHOT_MAGIC.byteLength);
    if (version !== SNAPSHOT_FORMAT_VERSION)
      throw new SnapshotFormatError(
        `${path} is snapshot format ${version}; this @atrium/microvm reads format ${SNAPSHOT_FORMAT_VERSION}: restore it with the version that took it`,
      );
    const tail = Buffer.alloc(TRAILER_BYTES);
    await file.read(tail, 0, TRAILER_BYTES, size - TRAILER_BYTES);
    if (!tail.subarray(4).equals(SNAPSHOT_MAGIC)) throw bad("it is cut short (no closing magic)");
    const length = tail.readUInt32BE(0);
    if (length > MAX_MANIFEST_BYTES || length > size - SNAPSHOT_HEADER_BYTES - TRAILER_BYTES)
      throw bad(`its manifest length ${length} does not fit`);
    const json = Buffer.alloc(length);
    await file.read(json, 0, length, size - TRAILER_BYTES - length);
    let manifest: SnapshotManifest;
    try {
      manifest = JSON.parse(json.toString("utf8")) as SnapshotManifest;
    } catch {
      throw bad("its manifest is not JSON");
    }
    const end = size - TRAILER_BYTES - length;
    for (const section of [manifest.state, manifest.ram, manifest.disk]) {
      if (section && (section.offset < SNAPSHOT_HEADER_BYTES || section.offset + section.size > end))
        throw bad("a section lies outside the file");
    }
    return manifest;
  } finally {
    await file.close();
  }
}
