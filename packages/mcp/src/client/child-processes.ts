import { onExit } from "signal-exit";

/**
 * Process groups of the stdio servers still running. Each server is spawned as the leader of
 * its own group, so killing the group also reaches what it started (npx → node server).
 * When the host exits — normally, by an uncaught error or by a signal — every group left is
 * killed, so a crashed agent run leaves no orphans behind.
 */
const liveGroups = new Set<number>();
let hooked = false;

export function trackChildGroup(pid: number): void {
  liveGroups.add(pid);
  if (!hooked) {
    hooked = true;
    onExit(() => {
      for (const group of liveGroups) killGroup(group, "SIGKILL");
      liveGroups.clear();
    });
  }
}

export function untrackChildGroup(pid: number): void {
  liveGroups.delete(pid);
}

/** Sends `signal` to the whole group led by `pid`; false when nothing was left to signal. */
export function killGroup(pid: number, signal: NodeJS.Signals): boolean {
  try {
    process.kill(-pid, signal);
    return true;
  } catch {
    return false;
  }
}
