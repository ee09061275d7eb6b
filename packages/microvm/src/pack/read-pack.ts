import { createHash, type Hash } from "node:crypto";
import { type FileHandle, mkdir, open, stat } from "node:fs/promises";
import { join } from "node:path";
import { PackFormatError } from "../errors.js";
import {
  BLOCK_RECORD_HEADER_BYTES,
  DIGEST_BYTES,
  OPTIONAL_PACK_SECTIONS,
  PACK_FORMAT_VERSION,
  PACK_HEADER_BYTES,
  PACK_MAGIC,
  PACK_SECTIONS,
  type PackManifest,
  type PackSectionName,
} from "./pack-format.js";

const READ_CHUNK_BYTES = 1024 * 1024;
/** A manifest is a few kilobytes; a larger length field means a damaged or foreign file. */
const MANIFEST_MAX_BYTES = 1024 * 1024;

/** Reads a file front to back in exact-size pieces, hashing everything it hands out. */
class HashingReader {
  readonly whole = createHash("sha256");
  position = 0;

  constructor(private readonly file: FileHandle) {}

  /** `into` also hashes the bytes; null leaves them out of the whole-file hash (the trailer). */
  async read(length: number, into?: Hash | null): Promise<Buffer> {
    const buffer = Buffer.alloc(length);
    let filled = 0;
    while (filled < length) {
      const { bytesRead } = await this.file.read(buffer, filled, length - filled, this.position + filled);
      if (bytesRead === 0) break;
      filled += bytesRead;
    }
    this.position += filled;
    const data = buffer.subarray(0, filled);
    if (into !== null) this.whole.update(data);
    into?.update(data);
    return data;
  }
}

export interface OpenedPack {
  manifest: PackManifest;
  /** Where the first section starts. */
  sectionsOffset: number;
}

/**
 * Reads and checks a pack's header and manifest, and that the file is as long as the manifest
 * says: a foreign file, a newer format, a damaged manifest and a cut-short copy each get their
 * own error before any section is read.
 */
export async function readPackManifest(path: string): Promise<OpenedPack> {
  const info = await stat(path).catch(() => undefined);
  if (!info?.isFile())
    throw new PackFormatError(
      `${path}: no such pack file; give the path of a file written by \`atrium-vm pack create\``,
    );
  const file = await open(path, "r");
  try {
    return await readManifestFrom(path, new HashingReader(file), info.size);
  } finally {
    await file.close();
  }
}

async function readManifestFrom(path: string, reader: HashingReader, fileSize: number): Promise<OpenedPack> {
  const header = await reader.read(PACK_HEADER_BYTES);
  if (
    header.byteLength < PACK_MAGIC.byteLength ||
    !header.subarray(0, PACK_MAGIC.byteLength).equals(PACK_MAGIC)
  ) {
    throw new PackFormatError(
      `${path} is not an atrium-vm pack (it does not start with the pack magic "ATRIUM-VM-PACK"); packs are written by \`atrium-vm pack create\``,
    );
  }
  if (header.byteLength < PACK_HEADER_BYTES) throw truncated(path, fileSize, "its header");
  const version = header.readUInt32BE(PACK_MAGIC.byteLength);
  if (version !== PACK_FORMAT_VERSION) {
    throw new PackFormatError(
      version > PACK_FORMAT_VERSION
        ? `${path} is a version ${version} pack; this @atrium/microvm reads version ${PACK_FORMAT_VERSION}: upgrade @atrium/microvm to boot it`
        : `${path} declares pack format version ${version}, which never existed (this reader knows ${PACK_FORMAT_VERSION}); the file is damaged`,
    );
  }
  const manifestLength = header.readUInt32BE(PACK_MAGIC.byteLength + 4);
  if (manifestLength === 0 || manifestLength > MANIFEST_MAX_BYTES) {
    throw new PackFormatError(
      `${path} is corrupt: its manifest length (${manifestLength} bytes) is impossible; copy the file again`,
    );
  }
  const manifestBytes = await reader.read(manifestLength);
  const manifestDigest = await reader.read(DIGEST_BYTES);
  if (manifestDigest.byteLength < DIGEST_BYTES) throw truncated(path, fileSize, "its manifest");
  if (!createHash("sha256").update(manifestBytes).digest().equals(manifestDigest)) {
    throw new PackFormatError(
      `${path} is corrupt: the manifest's checksum does not match; copy the file again`,
    );
  }
  const manifest = parseManifest(path, manifestBytes);
  const sectionsOffset = PACK_HEADER_BYTES + manifestLength + DIGEST_BYTES;
  const expected =
    sectionsOffset + manifest.sections.reduce((sum, s) => sum + s.storedBytes, 0) + DIGEST_BYTES;
  if (fileSize < expected) throw truncated(path, fileSize, `${expected} bytes`);
  if (fileSize > expected) {
    throw new PackFormatError(
      `${path} is corrupt: ${fileSize - expected} bytes follow the end its manifest gives (${expected} bytes); copy the file again`,
    );
  }
  return { manifest, sectionsOffset };
}

function truncated(path: string, size: number, wanted: string): PackFormatError {
  return new PackFormatError(
    `${path} is truncated: it has ${size} bytes, short of ${wanted}; copy the whole file again`,
  );
}

function parseManifest(path: string, bytes: Buffer): PackManifest {
  let manifest: PackManifest;
  try {
    manifest = JSON.parse(bytes.toString("utf8")) as PackManifest;
  } catch {
    throw new PackFormatError(`${path} is corrupt: its manifest is not JSON; copy the file again`);
  }
  const names = Array.isArray(manifest?.sections) ? manifest.sections.map((s) => s?.name) : [];
  const sizesOk = (manifest?.sections ?? []).every(
    (s) =>
      Number.isSafeInteger(s.size) &&
      Number.isSafeInteger(s.storedBytes) &&
      s.size >= 0 &&
      s.storedBytes >= 0 &&
      /^[0-9a-f]{64}$/.test(s.sha256),
  );
  const known = [PACK_SECTIONS.join(","), [...PACK_SECTIONS, ...OPTIONAL_PACK_SECTIONS].join(",")];
  if (manifest?.format !== "atrium-vm-pack" || !known.includes(names.join(",")) || !sizesOk) {
    throw new PackFormatError(
      `${path} has a manifest this reader does not understand (sections ${JSON.stringify(names)}, expected ${PACK_SECTIONS.join(", ")}); it was not written by a compatible \`atrium-vm pack create\``,
    );
  }
  return manifest;
}

/**
 * Checks a pack and writes its sections as files in `dir` (`config.json`, `vmlinux`,
 * `initramfs.cpio`, `agent`, `disk.ext4`), holes kept as holes. Every section's checksum and
 * the checksum over the whole file are verified; on any mismatch nothing is returned and the
 * error names the section.
 */
export async function extractPack(
  path: string,
  dir: string,
): Promise<{
  manifest: PackManifest;
  files: Record<(typeof PACK_SECTIONS)[number], string> & { snapshot?: string };
}> {
  const { size } = await stat(path).catch(() => {
    throw new PackFormatError(
      `${path}: no such pack file; give the path of a file written by \`atrium-vm pack create\``,
    );
  });
  const file = await open(path, "r");
  const reader = new HashingReader(file);
  try {
    const { manifest } = await readManifestFrom(path, reader, size);
    await mkdir(dir, { recursive: true });
    const files = {} as Record<(typeof PACK_SECTIONS)[number], string> & { snapshot?: string };
    for (const section of manifest.sections) {
      const target = join(dir, SECTION_FILE[section.name]);
      files[section.name] = target;
      const hash = createHash("sha256");
      const out = await open(target, "w");
      try {
        await out.truncate(section.size);
        let remaining = section.storedBytes;
        while (remaining > 0) {
          if (remaining < BLOCK_RECORD_HEADER_BYTES)
            throw corruptSection(path, section.name, "a block record is cut short");
          const head = await reader.read(BLOCK_RECORD_HEADER_BYTES, hash);
          const offset = Number(head.readBigUInt64BE(0));
          const length = head.readUInt32BE(8);
          remaining -= BLOCK_RECORD_HEADER_BYTES;
          if (length > remaining || offset + length > section.size)
            throw corruptSection(path, section.name, "a block record points outside the section");
          for (let done = 0; done < length; ) {
            const piece = await reader.read(Math.min(READ_CHUNK_BYTES, length - done), hash);
            await out.write(piece, 0, piece.byteLength, offset + done);
            done += piece.byteLength;
          }
          remaining -= length;
        }
      } finally {
        await out.close();
      }
      if (hash.digest("hex") !== section.sha256)
        throw corruptSection(path, section.name, "its checksum does not match");
    }
    const computed = reader.whole.digest();
    const stored = await reader.read(DIGEST_BYTES, null);
    if (!computed.equals(stored)) {
      throw new PackFormatError(
        `${path} is corrupt: the checksum over the whole file does not match; copy the file again`,
      );
    }
    return { manifest, files };
  } finally {
    await file.close();
  }
}

function corruptSection(path: string, name: PackSectionName, why: string): PackFormatError {
  return new PackFormatError(`${path} is corrupt: section "${name}": ${why}; copy the file again`);
}

export const SECTION_FILE: Record<PackSectionName, string> = {
  config: "config.json",
  kernel: "vmlinux",
  initramfs: "initramfs.cpio",
  agent: "agent",
  rootfs: "disk.ext4",
  snapshot: "machine.snapshot",
};
