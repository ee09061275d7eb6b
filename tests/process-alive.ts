import { readFileSync } from "node:fs";

/**
 * Whether process `pid` still runs. A process that has ended but is not reaped yet (a zombie:
 * its parent died and init reaps late, as on this project's machines under load) has ended:
 * `kill(pid, 0)` would still say it runs.
 */
export function isAlive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[0] !== "Z";
  } catch {
    return false;
  }
}
