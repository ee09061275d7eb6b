import { readdirSync, readFileSync } from "node:fs";

/**
 * PIDs of the QEMU processes descended from `ancestor`, from /proc. Descendants, not children: a
 * root host starts QEMU under setpriv and unshare (qemu-process.ts), so QEMU is a grandchild.
 */
export function qemuDescendants(ancestor: number): number[] {
  const parentOf = new Map<number, number>();
  const isQemu = new Set<number>();
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, "utf8");
      const comm = stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")"));
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      parentOf.set(Number(name), ppid);
      if (comm.startsWith("qemu-system")) isQemu.add(Number(name));
    } catch {
      // the process ended while we looked
    }
  }
  const descends = (pid: number): boolean => {
    for (let p = parentOf.get(pid); p !== undefined && p > 1; p = parentOf.get(p))
      if (p === ancestor) return true;
    return false;
  };
  return [...isQemu].filter(descends);
}
