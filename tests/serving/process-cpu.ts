// CPU time from Linux's /proc, to say where a throughput figure's cores went: each process's
// user + system time (all its threads: a replica's worker threads count), and the whole
// machine's idle time (other tenants of a shared machine show up as neither).
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";

const TICKS_PER_SECOND = Number(spawnSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).stdout.trim()) || 100;

/** CPU seconds a process has used so far (user + system), or 0 once it is gone. */
export function processCpuSeconds(pid: number): number {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  } catch {
    return 0;
  }
  // The command name (field 2) is in parentheses and may hold spaces: count fields after it.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  // Fields 14 and 15 of proc(5), utime and stime; `fields` starts at field 3.
  return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
}

/** Idle CPU seconds of the whole machine so far, summed over its cores (idle + iowait). */
export function machineIdleSeconds(): number {
  const line = readFileSync("/proc/stat", "utf8").split("\n")[0]!;
  const [, , , , idle, iowait] = line.split(/\s+/).map(Number);
  return ((idle ?? 0) + (iowait ?? 0)) / TICKS_PER_SECOND;
}
