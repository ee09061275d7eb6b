import { ImageFormatError } from "../errors.js";

/** One entry of a tar archive, after pax and GNU long-name headers are applied. */
export interface TarEntry {
  path: string;
  type: "file" | "dir" | "symlink" | "hardlink" | "char-device" | "block-device" | "fifo";
  mode: number;
  uid: number;
  gid: number;
  /** Target of a symlink or hard link. */
  linkName: string;
  data: Uint8Array;
}

const BLOCK = 512;
const decoder = new TextDecoder();
/**
 * Bounds on what one archive may ask of the reader: an archive is untrusted input, and without
 * them a crafted header (a pax record of a huge size, endless extension headers) costs memory or
 * time out of proportion to its bytes.
 */
const PAX_MAX_BYTES = 1024 * 1024;
const EXTENSION_HEADERS_MAX = 16;

function field(block: Uint8Array, offset: number, length: number): string {
  const bytes = block.subarray(offset, offset + length);
  const end = bytes.indexOf(0);
  return decoder.decode(end < 0 ? bytes : bytes.subarray(0, end));
}

function octal(block: Uint8Array, offset: number, length: number): number {
  // GNU base-256 for large values: high bit of the first byte set.
  if ((block[offset] as number) & 0x80) {
    let value = 0;
    for (let i = 1; i < length; i++) value = value * 256 + (block[offset + i] as number);
    return value;
  }
  const text = field(block, offset, length).trim();
  // An octal field that is not octal is a crafted or corrupt header: NaN, never a guess.
  return text === "" ? 0 : /^[0-7]+$/.test(text) ? Number.parseInt(text, 8) : Number.NaN;
}

function parsePax(data: Uint8Array): Record<string, string> {
  const records: Record<string, string> = {};
  const text = decoder.decode(data);
  let offset = 0;
  while (offset < text.length) {
    const space = text.indexOf(" ", offset);
    if (space < 0) break;
    const length = Number.parseInt(text.slice(offset, space), 10);
    if (!(length > 0)) break;
    // Lengths count bytes; the records we read (path, linkpath, size) are ASCII in practice.
    const record = text.slice(space + 1, offset + length - 1);
    const eq = record.indexOf("=");
    if (eq > 0) records[record.slice(0, eq)] = record.slice(eq + 1);
    offset += length;
  }
  return records;
}

const TYPES: Record<string, TarEntry["type"]> = {
  "0": "file",
  "\0": "file",
  "7": "file",
  "1": "hardlink",
  "2": "symlink",
  "3": "char-device",
  "4": "block-device",
  "5": "dir",
  "6": "fifo",
};

/** Every entry of an uncompressed tar archive (ustar, pax, GNU long names). */
export function readTar(archive: Uint8Array, what: string): TarEntry[] {
  const entries: TarEntry[] = [];
  let offset = 0;
  let pax: Record<string, string> = {};
  let longName: string | undefined;
  let longLink: string | undefined;
  let extensions = 0;
  while (offset + BLOCK <= archive.byteLength) {
    const block = archive.subarray(offset, offset + BLOCK);
    if (block.every((byte) => byte === 0)) break;
    const checksum = octal(block, 148, 8);
    let sum = 0;
    for (let i = 0; i < BLOCK; i++) sum += i >= 148 && i < 156 ? 32 : (block[i] as number);
    if (sum !== checksum)
      throw new ImageFormatError(
        `${what}: bad tar header checksum at byte ${offset}; the archive is corrupt or not a tar`,
      );
    const typeFlag = String.fromCharCode(block[156] as number);
    // A size that is not a whole number of bytes (negative, fractional, garbage) is refused: a
    // negative one would move the cursor backwards and loop forever.
    const sizeText = pax.size;
    const size =
      sizeText !== undefined
        ? /^\d+$/.test(sizeText)
          ? Number(sizeText)
          : Number.NaN
        : octal(block, 124, 12);
    if (!Number.isSafeInteger(size) || size < 0)
      throw new ImageFormatError(
        `${what}: tar entry at byte ${offset} has an invalid size (${sizeText ?? field(block, 124, 12).trim()}); the archive is corrupt or crafted`,
      );
    if (
      (typeFlag === "x" || typeFlag === "g" || typeFlag === "L" || typeFlag === "K") &&
      size > PAX_MAX_BYTES
    )
      throw new ImageFormatError(
        `${what}: tar extension header at byte ${offset} is ${size} bytes, over ${PAX_MAX_BYTES}; the archive is corrupt or crafted`,
      );
    const dataStart = offset + BLOCK;
    if (dataStart + size > archive.byteLength)
      throw new ImageFormatError(
        `${what}: tar entry at byte ${offset} runs past the end; the archive is truncated`,
      );
    const data = archive.subarray(dataStart, dataStart + size);
    if ("xgLK".includes(typeFlag) && ++extensions > EXTENSION_HEADERS_MAX)
      throw new ImageFormatError(
        `${what}: more than ${EXTENSION_HEADERS_MAX} extension headers before one tar entry at byte ${offset}; the archive is corrupt or crafted`,
      );
    offset = dataStart + Math.ceil(size / BLOCK) * BLOCK;
    if (typeFlag === "x") {
      pax = { ...pax, ...parsePax(data) };
      continue;
    }
    if (typeFlag === "g") continue;
    if (typeFlag === "L") {
      longName = field(data, 0, data.byteLength);
      continue;
    }
    if (typeFlag === "K") {
      longLink = field(data, 0, data.byteLength);
      continue;
    }
    const type = TYPES[typeFlag];
    const prefix = field(block, 345, 155);
    const name =
      pax.path ?? longName ?? (prefix ? `${prefix}/${field(block, 0, 100)}` : field(block, 0, 100));
    const linkName = pax.linkpath ?? longLink ?? field(block, 157, 100);
    pax = {};
    extensions = 0;
    longName = undefined;
    longLink = undefined;
    if (!type) continue; // vendor extensions we do not need
    const mode = octal(block, 100, 8);
    const uid = octal(block, 108, 8);
    const gid = octal(block, 116, 8);
    if (![mode, uid, gid].every(Number.isSafeInteger))
      throw new ImageFormatError(
        `${what}: tar entry ${name} at byte ${dataStart - BLOCK} has a mode, uid or gid that is not a number; the archive is corrupt or crafted`,
      );
    entries.push({
      path: name,
      type,
      mode: mode & 0o7777,
      uid,
      gid,
      linkName,
      data,
    });
  }
  return entries;
}

/** What `writeTar` takes: the fields of an entry that matter when building test images. */
export interface TarInput {
  path: string;
  type: "file" | "dir" | "symlink";
  mode?: number;
  linkName?: string;
  data?: Uint8Array;
}

/** A ustar archive (names up to 100 bytes, enough for images built here). */
export function writeTar(inputs: readonly TarInput[]): Uint8Array {
  const blocks: Uint8Array[] = [];
  const encoder = new TextEncoder();
  for (const input of inputs) {
    const header = new Uint8Array(BLOCK);
    const put = (offset: number, length: number, text: string) => {
      const bytes = encoder.encode(text);
      if (bytes.byteLength > length) throw new ImageFormatError(`tar field too long: ${text}`);
      header.set(bytes, offset);
    };
    const data = input.type === "file" ? (input.data ?? new Uint8Array()) : new Uint8Array();
    const num = (value: number, length: number) => value.toString(8).padStart(length - 1, "0");
    put(0, 100, input.path);
    put(100, 8, num(input.mode ?? (input.type === "dir" ? 0o755 : 0o644), 8));
    put(108, 8, num(0, 8));
    put(116, 8, num(0, 8));
    put(124, 12, num(data.byteLength, 12));
    put(136, 12, num(0, 12));
    put(156, 1, input.type === "dir" ? "5" : input.type === "symlink" ? "2" : "0");
    put(157, 100, input.linkName ?? "");
    put(257, 6, "ustar");
    put(263, 2, "00");
    header.fill(32, 148, 156);
    let sum = 0;
    for (const byte of header) sum += byte;
    put(148, 8, `${sum.toString(8).padStart(6, "0")}\0 `);
    blocks.push(header);
    if (data.byteLength) {
      const padded = new Uint8Array(Math.ceil(data.byteLength / BLOCK) * BLOCK);
      padded.set(data);
      blocks.push(padded);
    }
  }
  blocks.push(new Uint8Array(BLOCK * 2));
  const out = new Uint8Array(blocks.reduce((total, block) => total + block.byteLength, 0));
  let offset = 0;
  for (const block of blocks) {
    out.set(block, offset);
    offset += block.byteLength;
  }
  return out;
}
