import { open, stat } from "node:fs/promises";

/** Blocks of this size that hold only zeros are left out of a pack (disks and kernels are mostly holes). */
export const SPARSE_BLOCK_BYTES = 64 * 1024;

/**
 * The blocks of a file that hold any non-zero byte, in order, each with its offset. A 300 MB
 * ext4 image of a busybox root holds about 19 MB of data; a decompressed kernel about half its size.
 */
export async function* dataBlocks(path: string): AsyncGenerator<{ offset: number; data: Buffer }> {
  const file = await open(path, "r");
  try {
    const size = (await file.stat()).size;
    const buffer = Buffer.alloc(SPARSE_BLOCK_BYTES);
    for (let offset = 0; offset < size; offset += SPARSE_BLOCK_BYTES) {
      const { bytesRead } = await file.read(buffer, 0, Math.min(SPARSE_BLOCK_BYTES, size - offset), offset);
      const data = buffer.subarray(0, bytesRead);
      if (!isZero(data)) yield { offset, data: Buffer.from(data) };
    }
  } finally {
    await file.close();
  }
}

/** Copies a file keeping its holes as holes (a named machine's disk starts as a copy of its image's). */
export async function copySparse(from: string, to: string): Promise<void> {
  const { size } = await stat(from);
  const out = await open(to, "w");
  try {
    await out.truncate(size);
    for await (const block of dataBlocks(from))
      await out.write(block.data, 0, block.data.byteLength, block.offset);
  } finally {
    await out.close();
  }
}

const ZERO_BLOCK = Buffer.alloc(SPARSE_BLOCK_BYTES);

function isZero(data: Buffer): boolean {
  return data.equals(
    data.byteLength === SPARSE_BLOCK_BYTES ? ZERO_BLOCK : ZERO_BLOCK.subarray(0, data.byteLength),
  );
}
