import { createHash } from "node:crypto";
import { open, rename, rm, stat } from "node:fs/promises";
import { dataBlocks } from "../image/sparse-blocks.js";
import {
  BLOCK_RECORD_HEADER_BYTES,
  encodeBlockRecordHeader,
  encodeHeader,
  OPTIONAL_PACK_SECTIONS,
  PACK_FORMAT_VERSION,
  PACK_SECTIONS,
  type PackManifest,
  type PackSection,
  type PackSectionName,
} from "./pack-format.js";

/** A section's content: a file on the host, or bytes (the config). */
export type SectionSource = { path: string } | { bytes: Uint8Array };

async function* sourceBlocks(source: SectionSource): AsyncGenerator<{ offset: number; data: Uint8Array }> {
  if ("bytes" in source) {
    if (source.bytes.byteLength > 0) yield { offset: 0, data: source.bytes };
    return;
  }
  yield* dataBlocks(source.path);
}

async function sourceSize(source: SectionSource): Promise<number> {
  return "bytes" in source ? source.bytes.byteLength : (await stat(source.path)).size;
}

/**
 * Writes a pack file (format in pack-format.ts). Two passes over the sections: the first hashes
 * them for the manifest, which comes before them in the file; the second writes. The file is
 * written under a temporary name and renamed, so a failed pack never leaves a plausible file.
 */
export async function writePack(
  outPath: string,
  manifest: Omit<PackManifest, "format" | "version" | "sections">,
  sources: Record<(typeof PACK_SECTIONS)[number], SectionSource> & { snapshot?: SectionSource },
): Promise<PackManifest> {
  const sections: PackSection[] = [];
  const names: PackSectionName[] = [
    ...PACK_SECTIONS,
    ...OPTIONAL_PACK_SECTIONS.filter((name) => sources[name] !== undefined),
  ];
  for (const name of names) {
    const source = sources[name] as SectionSource;
    const hash = createHash("sha256");
    let storedBytes = 0;
    for await (const block of sourceBlocks(source)) {
      hash.update(encodeBlockRecordHeader(block.offset, block.data.byteLength));
      hash.update(block.data);
      storedBytes += BLOCK_RECORD_HEADER_BYTES + block.data.byteLength;
    }
    sections.push({ name, size: await sourceSize(source), storedBytes, sha256: hash.digest("hex") });
  }
  const full: PackManifest = {
    format: "atrium-vm-pack",
    version: PACK_FORMAT_VERSION,
    ...manifest,
    sections,
  };
  const manifestBytes = Buffer.from(JSON.stringify(full), "utf8");
  const tmp = `${outPath}.tmp-${process.pid}`;
  const out = await open(tmp, "w");
  const whole = createHash("sha256");
  const write = async (chunk: Uint8Array) => {
    whole.update(chunk);
    await out.write(chunk);
  };
  try {
    await write(encodeHeader(manifestBytes.byteLength));
    await write(manifestBytes);
    await write(createHash("sha256").update(manifestBytes).digest());
    for (const name of names) {
      for await (const block of sourceBlocks(sources[name] as SectionSource)) {
        await write(encodeBlockRecordHeader(block.offset, block.data.byteLength));
        await write(block.data);
      }
    }
    await out.write(whole.digest());
    await out.close();
    await rename(tmp, outPath);
  } catch (error) {
    await out.close().catch(() => {});
    await rm(tmp, { force: true });
    throw error;
  }
  return full;
}
