import { execFileSync } from "node:child_process";
import { which } from "../src/run-command.js";

/**
 * debugfs (Debian's e2fsprogs) reads files and listings out of the ext4 disks the image tests
 * build. It lives in /sbin, which is not on an ordinary user's PATH, so it is looked for there
 * too (`which` adds /usr/sbin and /sbin). Without it the tests that read disks skip, saying what
 * to install; under CI=true they run and fail, as a missing tool must not pass quietly there.
 */
const DEBUGFS = await which("debugfs");

export const DEBUGFS_INSTALL =
  "debugfs (e2fsprogs) not found on PATH, /usr/sbin or /sbin: sudo apt-get install -y e2fsprogs";

export const SKIP_DEBUGFS = DEBUGFS === undefined && process.env.CI !== "true";
if (SKIP_DEBUGFS) console.warn(`@atrium/microvm: tests that read built disks skipped; ${DEBUGFS_INSTALL}`);

/** debugfs's answer to one request (`-R`) about `disk`, its diagnostics dropped. */
export function debugfs(disk: string, request: string): string {
  if (DEBUGFS === undefined) throw new Error(DEBUGFS_INSTALL);
  return execFileSync(DEBUGFS, ["-R", request, disk], {
    encoding: "utf8",
    stdio: ["ignore", "pipe", "ignore"],
  });
}
