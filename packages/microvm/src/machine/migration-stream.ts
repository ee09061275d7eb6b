import { closeSync, openSync, readSync } from "node:fs";
import { chown, type FileHandle, rm } from "node:fs/promises";
import { createServer, type Socket } from "node:net";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import type { QemuUser } from "./qemu-user.js";
import type { QmpClient } from "./qmp-client.js";

/**
 * QEMU's own cap on migration speed (128 MiB/s in 7.2) is meant for a live migration sharing a
 * network; a snapshot of a stopped machine to a local file should go as fast as the disk takes it.
 */
const UNTHROTTLED_BYTES_PER_SECOND = 64 * 1024 * 1024 * 1024;
const POLL_MS = 5;

/**
 * Writes the stopped machine's migration stream into `out` at `offset`, and resolves with its
 * length. Debian's QEMU 7.2 has no `file:` migration and its seccomp sandbox forbids `exec:`,
 * so QEMU connects to a Unix socket this process listens on in the run directory, and the bytes
 * go from the socket straight into the snapshot file.
 */
export async function saveMigrationStream(
  qmp: QmpClient,
  runDir: string,
  user: QemuUser | undefined,
  out: FileHandle,
  offset: number,
  timeoutMs: number,
  ignoreShared = false,
): Promise<{ bytes: number; downtimeMs: number }> {
  const path = join(runDir, "migrate-out.sock");
  let written = 0;
  let failed: Error | undefined;
  let writing: Promise<void> = Promise.resolve();
  const server = createServer();
  const received = new Promise<void>((resolve, reject) => {
    server.once("connection", (socket: Socket) => {
      server.close();
      // One write at a time, in order: pause the socket while the file takes a chunk.
      socket.on("data", (chunk: Buffer) => {
        socket.pause();
        writing = out.write(chunk, 0, chunk.byteLength, offset + written).then(
          () => {
            written += chunk.byteLength;
            socket.resume();
          },
          (error: Error) => {
            failed = error;
            socket.destroy();
          },
        );
      });
      socket.on("error", reject);
      // The last chunk's write may still be in flight when the socket closes.
      socket.on("close", () => void writing.then(() => (failed ? reject(failed) : resolve())));
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(path, resolve);
  });
  try {
    // QEMU runs as its own user: the socket must be its to connect to.
    if (user) await chown(path, user.uid, user.gid);
    await qmp.execute("migrate-set-parameters", { "max-bandwidth": UNTHROTTLED_BYTES_PER_SECOND }, timeoutMs);
    if (ignoreShared) await setIgnoreShared(qmp, timeoutMs);
    await qmp.execute("migrate", { uri: `unix:${path}` }, timeoutMs);
    const deadline = Date.now() + timeoutMs;
    let downtimeMs = 0;
    for (;;) {
      const info = (await qmp.execute("query-migrate", {}, timeoutMs)) as {
        status?: string;
        "error-desc"?: string;
        downtime?: number;
      };
      if (info.status === "completed") {
        downtimeMs = info.downtime ?? 0;
        break;
      }
      if (info.status === "failed" || info.status === "cancelled")
        throw new Error(`QEMU's migration to the snapshot failed: ${info["error-desc"] ?? info.status}`);
      if (Date.now() > deadline)
        throw new Error(
          `QEMU did not finish writing the snapshot within ${timeoutMs} ms (snapshotTimeoutMs)`,
        );
      await sleep(POLL_MS);
    }
    await withTimeout(received, timeoutMs, "the end of the migration stream");
    return { bytes: written, downtimeMs };
  } finally {
    server.close();
    await rm(path, { force: true });
  }
}

/**
 * The snapshot file opened for QEMU to inherit, its position at the state section's first byte:
 * QEMU then reads the stream itself (`fd:` migration), with no copy through this process. Node
 * has no lseek, so the bytes before the section are read through the descriptor to move it.
 */
export function openStreamAt(file: string, offset: number): number {
  const fd = openSync(file, "r");
  try {
    const skip = Buffer.alloc(Math.min(offset, 64 * 1024));
    for (let left = offset; left > 0; ) {
      const read = readSync(fd, skip, 0, Math.min(left, skip.byteLength), null);
      if (read <= 0) throw new Error(`${file} ends before its state section`);
      left -= read;
    }
    return fd;
  } catch (error) {
    closeSync(fd);
    throw error;
  }
}

/**
 * Has a QEMU started with `-incoming defer` read its migration stream from its inherited fd
 * `qemuFd` (see `openStreamAt`), and resolves once the guest runs again.
 */
export async function loadMigrationStream(
  qmp: QmpClient,
  qemuFd: number,
  isAlive: () => boolean,
  timeoutMs: number,
  ignoreShared = false,
): Promise<void> {
  if (ignoreShared) await setIgnoreShared(qmp, timeoutMs);
  await qmp.execute("migrate-incoming", { uri: `fd:${qemuFd}` }, timeoutMs);
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (!isAlive()) throw new Error("QEMU exited while loading the snapshot's state");
    const status = (await qmp.execute("query-status", {}, timeoutMs)) as { status?: string };
    if (status.status === "running") return;
    // A stream taken of a paused guest restores it paused (QEMU keeps the run state it had).
    if (status.status === "paused") {
      await qmp.execute("cont", {}, timeoutMs);
      return;
    }
    if (Date.now() > deadline)
      throw new Error(`the restored machine was not running within ${timeoutMs} ms (state ${status.status})`);
    await sleep(POLL_MS);
  }
}

/**
 * Leaves shared RAM (the memfd of a TCG guest) out of the stream: the snapshot carries it in a
 * section of its own (guest-ram.ts). Both ends must set it, or the stream's layout differs.
 */
async function setIgnoreShared(qmp: QmpClient, timeoutMs: number): Promise<void> {
  await qmp.execute(
    "migrate-set-capabilities",
    { capabilities: [{ capability: "x-ignore-shared", state: true }] },
    timeoutMs,
  );
}

async function withTimeout<T>(promise: Promise<T>, timeoutMs: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`waited ${timeoutMs} ms for ${what}`)), timeoutMs);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
