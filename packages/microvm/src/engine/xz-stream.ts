import { spawn } from "node:child_process";
import { createReadStream } from "node:fs";
import type { Readable, Writable } from "node:stream";
import { pipeline } from "node:stream/promises";

export interface XzResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stderr: string;
}

/**
 * Decompresses the first xz stream that starts at byte `start` of `sourcePath` into `outFd`,
 * streaming the file into `xz -dc --single-stream` (never the whole file in memory).
 *
 * A Debian bzImage carries megabytes after its xz stream; `--single-stream` makes xz stop at the
 * stream's end and exit, so the rest of the file meets a closed pipe. That EPIPE (or Node closing
 * the pipe when xz exits) is the expected end of the feeding, not a failure: the exit code says whether the stream decompressed. Every
 * other error (the file unreadable, xz not startable) rejects, with xz stopped, and nothing is
 * left emitting an unhandled 'error' event (which crashed `npm run demo -- --web` before).
 */
export async function xzDecompressFile(
  xzPath: string,
  sourcePath: string,
  start: number,
  outFd: number,
): Promise<XzResult> {
  const child = spawn(xzPath, ["-dc", "--single-stream"], { stdio: ["pipe", outFd, "pipe"] });
  // Both pipes exist: stdio asks for them.
  const stdin = child.stdin as Writable;
  let stderr = "";
  (child.stderr as Readable).setEncoding("utf8").on("data", (chunk: string) => {
    stderr += chunk;
  });
  const exited = new Promise<XzResult>((resolve, reject) => {
    child.once("error", reject);
    child.once("close", (code, signal) => resolve({ code, signal, stderr }));
  });
  const fed = pipeline(createReadStream(sourcePath, { start }), stdin).catch(
    (error: NodeJS.ErrnoException) => {
      // xz stopped reading: a write met the closed pipe, or Node closed xz's stdin when it exited.
      if (error.code === "EPIPE" || error.code === "ERR_STREAM_PREMATURE_CLOSE") return;
      // xz would otherwise wait for input that never comes.
      child.kill("SIGKILL");
      throw error;
    },
  );
  // Both settle: a failed feed kills xz, so `exited` follows; a failed spawn errors both.
  const [feeding, exit] = await Promise.allSettled([fed, exited]);
  if (exit.status === "rejected") throw exit.reason;
  if (feeding.status === "rejected") throw feeding.reason;
  return exit.value;
}
