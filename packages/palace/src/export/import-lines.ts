import { constants } from "node:fs";
import { type FileHandle, open } from "node:fs/promises";
import { invalidInput, PalaceError } from "../errors.js";
import { fileKind } from "../mining/read-regular-file.js";

/**
 * Opens an export for reading, refusing what is no regular file (a FIFO would block, a device
 * never end) and a file that is not there, before anything is created: the CLI checks it first
 * so a mistyped path leaves no empty palace behind.
 */
export async function openExportFile(file: string): Promise<FileHandle> {
  let handle: FileHandle;
  try {
    handle = await open(file, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") {
      throw new PalaceError(
        "palace/not-found",
        `${file} does not exist; give a file written by \`atrium-palace export\``,
      );
    }
    throw new PalaceError("palace/not-found", `Cannot read ${file}: ${(error as Error).message}`);
  }
  const info = await handle.stat();
  if (!info.isFile()) {
    await handle.close();
    throw invalidInput(
      file,
      `is ${fileKind(info)}, not a regular file; give a file written by \`atrium-palace export\``,
    );
  }
  return handle;
}

/**
 * The lines of an export file, read as a stream with a byte limit per line that holds while
 * reading: a line is refused once it passes `maxLineBytes`, before the rest of it is read. (A
 * line reader that returns whole lines buffered a 100 MB line, 414 MB of memory, before the
 * limit was checked; a 600 MB line ended in an uncaught RangeError.) Lines end at "\n"; a "\r"
 * before it is dropped. Each line must be UTF-8.
 */
export async function* importLines(
  file: string,
  maxLineBytes: number,
): AsyncGenerator<{ line: number; text: string }> {
  const handle = await openExportFile(file);
  const stream = handle.createReadStream({ highWaterMark: 64 * 1024 });
  const decoder = new TextDecoder("utf-8", { fatal: true });
  let parts: Buffer[] = [];
  let length = 0;
  let line = 0;
  const finish = (): { line: number; text: string } => {
    line++;
    let bytes = parts.length === 1 ? (parts[0] as Buffer) : Buffer.concat(parts, length);
    if (bytes.length > 0 && bytes[bytes.length - 1] === 0x0d) bytes = bytes.subarray(0, bytes.length - 1);
    if (bytes.length > maxLineBytes) throw tooLong(file, line, maxLineBytes);
    parts = [];
    length = 0;
    try {
      return { line, text: decoder.decode(bytes) };
    } catch {
      throw invalidInput(`${file}:${line}`, "is not UTF-8 text; is this a palace export?");
    }
  };
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      let start = 0;
      for (;;) {
        const end = chunk.indexOf(0x0a, start);
        const piece = chunk.subarray(start, end === -1 ? chunk.length : end);
        length += piece.length;
        if (length > maxLineBytes + 1) {
          throw tooLong(file, line + 1, maxLineBytes);
        }
        if (piece.length > 0) parts.push(piece);
        if (end === -1) break;
        yield finish();
        start = end + 1;
      }
    }
    if (length > 0) yield finish();
  } finally {
    stream.destroy();
    await handle.close().catch(() => {});
  }
}

function tooLong(file: string, line: number, maxLineBytes: number) {
  return invalidInput(
    `${file}:${line}`,
    `is longer than maxImportLineBytes (${maxLineBytes} bytes); it was not read further. Is this a palace export?`,
  );
}
