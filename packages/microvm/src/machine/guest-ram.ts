import { closeSync, openSync, readdirSync, readlinkSync, readSync, writeSync } from "node:fs";
import { type FileHandle, open } from "node:fs/promises";

/** Blocks of guest RAM compared against zero; an all-zero block is left out of the snapshot. */
const BLOCK_BYTES = 64 * 1024;
const CHUNK_BYTES = 16 * BLOCK_BYTES;
const RECORD_HEADER_BYTES = 12;
const ZERO_BLOCK = Buffer.alloc(BLOCK_BYTES);

/**
 * The guest RAM of a TCG machine is a memfd (machineArgs, memory-backend-memfd): this host, root
 * or QEMU's own user, reaches it through /proc/PID/fd. undefined when the QEMU has none (KVM) or
 * this process may not see it; a snapshot then keeps the RAM in QEMU's stream.
 */
export function guestRamPath(qemuPid: number): string | undefined {
  const dir = `/proc/${qemuPid}/fd`;
  let fds: string[];
  try {
    fds = readdirSync(dir);
  } catch {
    // Not ours to look at (another user's QEMU on a host that is not root): RAM stays in the stream.
    return undefined;
  }
  for (const fd of fds) {
    try {
      if (readlinkSync(`${dir}/${fd}`).startsWith("/memfd:memory-backend-memfd ")) return `${dir}/${fd}`;
    } catch {
      // closed while we looked
    }
  }
  return undefined;
}

/**
 * Copies a stopped guest's RAM into `out` at `position` as records `u64 offset | u32 length |
 * bytes` of its non-zero 64 KiB blocks, and resolves with the bytes written. Why not QEMU's
 * stream: QEMU sends a marker for every zero page and the restoring QEMU reads each such page,
 * which makes its memfd allocate it; RAM written here is allocated only where it holds data.
 * Reading a memfd's holes allocates nothing.
 */
export async function saveGuestRam(ramPath: string, out: FileHandle, position: number): Promise<number> {
  const ram = await open(ramPath, "r");
  try {
    const chunk = Buffer.alloc(CHUNK_BYTES);
    let written = 0;
    for (let offset = 0; ; offset += CHUNK_BYTES) {
      const { bytesRead } = await ram.read(chunk, 0, CHUNK_BYTES, offset);
      if (bytesRead === 0) return written;
      // Runs of consecutive non-zero blocks go out as one record.
      let runStart = -1;
      const flush = async (end: number) => {
        if (runStart < 0) return;
        const header = Buffer.alloc(RECORD_HEADER_BYTES);
        header.writeBigUInt64BE(BigInt(offset + runStart), 0);
        header.writeUInt32BE(end - runStart, 8);
        await out.write(header, 0, RECORD_HEADER_BYTES, position + written);
        written += RECORD_HEADER_BYTES;
        await out.write(chunk, runStart, end - runStart, position + written);
        written += end - runStart;
        runStart = -1;
      };
      for (let block = 0; block < bytesRead; block += BLOCK_BYTES) {
        const end = Math.min(block + BLOCK_BYTES, bytesRead);
        const zero = chunk.subarray(block, end).equals(ZERO_BLOCK.subarray(0, end - block));
        if (zero) await flush(block);
        else if (runStart < 0) runStart = block;
      }
      await flush(bytesRead);
    }
  } finally {
    await ram.close();
  }
}

/**
 * Writes a snapshot's RAM records (bytes `offset`..`offset + size` of `file`) into a restoring
 * guest's RAM. Synchronous on purpose: a few hundred records of up to 1 MiB, each a read and a
 * write the kernel serves from the page cache, take tens of milliseconds this way and several
 * times that as a round trip through the thread pool per call, on the path a restore waits on.
 */
export function loadGuestRam(file: string, section: { offset: number; size: number }, ramPath: string): void {
  const source = openSync(file, "r");
  let ram: number | undefined;
  try {
    ram = openSync(ramPath, "r+");
    const header = Buffer.alloc(RECORD_HEADER_BYTES);
    const data = Buffer.alloc(CHUNK_BYTES);
    for (let at = section.offset, end = section.offset + section.size; at < end; ) {
      readSync(source, header, 0, RECORD_HEADER_BYTES, at);
      at += RECORD_HEADER_BYTES;
      const target = Number(header.readBigUInt64BE(0));
      const length = header.readUInt32BE(8);
      if (length > CHUNK_BYTES || at + length > end)
        throw new Error(`${file}: a RAM record at ${at - RECORD_HEADER_BYTES} does not fit its section`);
      if (readSync(source, data, 0, length, at) !== length)
        throw new Error(`${file} ends inside its RAM section`);
      writeSync(ram, data, 0, length, target);
      at += length;
    }
  } finally {
    closeSync(source);
    if (ram !== undefined) closeSync(ram);
  }
}
