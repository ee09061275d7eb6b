import { constants, type Stats } from "node:fs";
import { open } from "node:fs/promises";
import { PalaceError } from "../errors.js";

/**
 * Reads a file the miners were pointed at, bounded. `stat` says 0 bytes for a device or a FIFO,
 * so a size check before reading does not protect: `/dev/zero` grew a run to 11 GB and a FIFO
 * blocked it forever. The file is opened with O_NONBLOCK (a FIFO without a writer opens at once
 * instead of waiting), checked with `fstat` on that same descriptor (no swap between check and
 * read), and read to at most `maxBytes + 1` bytes.
 */
export async function readRegularFile(
  path: string,
  maxBytes: number,
): Promise<{ bytes: Buffer } | { tooLarge: true }> {
  const handle = await open(path, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    const info = await handle.stat();
    if (!info.isFile()) throw notRegularFile(path, info);
    const limit = maxBytes + 1;
    const buffer = Buffer.allocUnsafe(Math.min(limit, Math.max(info.size, 0) + 1));
    let bytes = buffer;
    let length = 0;
    // Read until end of file or one byte past the limit: the file may have grown since fstat.
    for (;;) {
      if (length === bytes.length) {
        if (bytes.length >= limit) break;
        const larger = Buffer.allocUnsafe(Math.min(limit, bytes.length * 2));
        bytes.copy(larger, 0, 0, length);
        bytes = larger;
      }
      const { bytesRead } = await handle.read(bytes, length, bytes.length - length, null);
      if (bytesRead === 0) break;
      length += bytesRead;
    }
    if (length > maxBytes) return { tooLarge: true };
    return { bytes: bytes.subarray(0, length) };
  } finally {
    await handle.close();
  }
}

/** "not a regular file: /dev/zero is a character device; ...": what the path is, and what to give instead. */
export function notRegularFile(path: string, info: Stats): PalaceError {
  return new PalaceError(
    "palace/invalid-input",
    `not a regular file: ${path} is ${fileKind(info)}; give a file or a folder of files to mine`,
  );
}

/** What a non-regular file is, with its article ("a character device"). */
export function fileKind(info: Stats): string {
  if (info.isDirectory()) return "a directory";
  if (info.isCharacterDevice()) return "a character device";
  if (info.isBlockDevice()) return "a block device";
  if (info.isFIFO()) return "a FIFO (named pipe)";
  if (info.isSocket()) return "a socket";
  if (info.isSymbolicLink()) return "a symbolic link";
  return info.isFile() ? "a regular file" : "not a file";
}
