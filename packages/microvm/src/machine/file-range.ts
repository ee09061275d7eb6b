import { type FileHandle, open } from "node:fs/promises";

const CHUNK_BYTES = 1024 * 1024;

/** Copies all of `sourcePath` into `out` at `position`; resolves with the bytes copied. */
export async function copyFileRange(out: FileHandle, sourcePath: string, position: number): Promise<number> {
  const source = await open(sourcePath, "r");
  try {
    const buffer = Buffer.allocUnsafe(CHUNK_BYTES);
    let copied = 0;
    for (;;) {
      const { bytesRead } = await source.read(buffer, 0, CHUNK_BYTES, copied);
      if (bytesRead === 0) return copied;
      await out.write(buffer, 0, bytesRead, position + copied);
      copied += bytesRead;
    }
  } finally {
    await source.close();
  }
}

/** Writes bytes `offset`..`offset + size` of `sourcePath` to a new file at `destPath`. */
export async function copyRangeToFile(
  sourcePath: string,
  section: { offset: number; size: number },
  destPath: string,
): Promise<void> {
  const source = await open(sourcePath, "r");
  const dest = await open(destPath, "wx", 0o600);
  try {
    const buffer = Buffer.allocUnsafe(CHUNK_BYTES);
    let copied = 0;
    while (copied < section.size) {
      const want = Math.min(CHUNK_BYTES, section.size - copied);
      const { bytesRead } = await source.read(buffer, 0, want, section.offset + copied);
      if (bytesRead === 0) throw new Error(`${sourcePath} ends inside its disk section`);
      await dest.write(buffer, 0, bytesRead, copied);
      copied += bytesRead;
    }
  } finally {
    await Promise.all([source.close(), dest.close()]);
  }
}
