import type { ImageRuntimeConfig } from "../image/oci-image.js";

/**
 * The pack file, version 1, byte by byte (integers big-endian):
 *
 *   magic "ATRIUM-VM-PACK\n\0" (16) | u32 format version | u32 manifest length
 *   | manifest (JSON, UTF-8) | sha256 of the manifest (32)
 *   | each section of the manifest, in its order, as block records
 *   | sha256 of every byte before it (32)
 *
 * A section is a run of block records `u64 offset | u32 length | bytes` (blocks of zeros left
 * out), which rebuild a file of the section's `size`; its `sha256` covers the records as stored.
 * The version is checked before anything else, so a newer format is named as such rather than
 * reported as damage.
 */
export const PACK_MAGIC = Buffer.from("ATRIUM-VM-PACK\n\0", "latin1");
export const PACK_FORMAT_VERSION = 1;
/** Magic, version, manifest length. */
export const PACK_HEADER_BYTES = PACK_MAGIC.byteLength + 8;
export const DIGEST_BYTES = 32;
/** u64 offset + u32 length before each block's bytes. */
export const BLOCK_RECORD_HEADER_BYTES = 12;
/** File name suggested for packs (not required). */
export const PACK_FILE_EXTENSION = ".atrium-vm";

/** In boot order: what the machine is, then what boots it. */
export const PACK_SECTIONS = ["config", "kernel", "initramfs", "agent", "rootfs"] as const;
/**
 * Sections a pack may carry after those: a snapshot of the machine (machine.snapshot), which
 * `bootPack` restores instead of booting. A reader that predates it refuses such a pack as one it
 * does not understand, rather than booting it without its state.
 */
export const OPTIONAL_PACK_SECTIONS = ["snapshot"] as const;
export type PackSectionName = (typeof PACK_SECTIONS)[number] | (typeof OPTIONAL_PACK_SECTIONS)[number];

export interface PackSection {
  name: PackSectionName;
  /** Bytes of the file the section rebuilds. */
  size: number;
  /** Bytes the section takes in the pack (its block records). */
  storedBytes: number;
  /** sha256 (hex) of the stored block records. */
  sha256: string;
}

export interface PackManifest {
  format: "atrium-vm-pack";
  version: typeof PACK_FORMAT_VERSION;
  createdAt: string;
  /** The named machine this was packed from, if any. */
  machine?: string;
  image: { digest: string; config: ImageRuntimeConfig };
  kernel: { release: string; vmlinuzSha256: string };
  /** Where the guest's root is: always the packed disk, written by the guest in a named machine. */
  root: "disk";
  sections: PackSection[];
}

export function encodeHeader(manifestLength: number): Buffer {
  const header = Buffer.alloc(PACK_HEADER_BYTES);
  PACK_MAGIC.copy(header, 0);
  header.writeUInt32BE(PACK_FORMAT_VERSION, PACK_MAGIC.byteLength);
  header.writeUInt32BE(manifestLength, PACK_MAGIC.byteLength + 4);
  return header;
}

export function encodeBlockRecordHeader(offset: number, length: number): Buffer {
  const header = Buffer.alloc(BLOCK_RECORD_HEADER_BYTES);
  header.writeBigUInt64BE(BigInt(offset), 0);
  header.writeUInt32BE(length, 8);
  return header;
}
