import type { FsStat } from "just-bash";
import { processOwner } from "../../fs/process-owner.js";

/**
 * `ls -l` lines as GNU prints them: mode, links, owner, group, size (or `-h` size), date, name,
 * with the numeric columns right-aligned and the names left-aligned to the widest in the
 * listing. Pages have no owner: they show as the running user's (`processOwner`).
 * Space is counted as a 4 KiB-block filesystem allocates it (ext4's default), which is what
 * `total` and `du` report on such a disk copy.
 */
export interface LongEntry {
  name: string;
  stat: FsStat;
  /** Directories: how many subdirectories (links = 2 + that). */
  subdirectories: number;
}

const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
const SIX_MONTHS_MS = (365.2425 / 2) * 24 * 3600 * 1000;
export const DIRECTORY_BYTES = 4096;

/** Kibibytes a file of `size` bytes takes in 4 KiB blocks; a directory takes one block. */
export function allocatedKiB(stat: FsStat): number {
  if (stat.isDirectory) return 4;
  return Math.ceil(stat.size / 4096) * 4;
}

/** GNU's `-h` size: whole bytes below 1024, else one decimal below 10 and none above, rounded up. */
export function humanSize(bytes: number): string {
  if (bytes < 1024) return String(bytes);
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < 6) {
    value /= 1024;
    unit++;
  }
  let text: string;
  if (value < 10) {
    const tenths = Math.ceil(value * 10 - 1e-9) / 10;
    if (tenths >= 10) text = "10";
    else text = tenths.toFixed(1);
  } else text = String(Math.ceil(value - 1e-9));
  if (text === "1024" && unit < 6) {
    unit++;
    text = "1.0";
  }
  return `${text}${"KMGTPE"[unit - 1]}`;
}

function modeString(stat: FsStat): string {
  const bits = stat.mode & 0o777;
  const type = stat.isDirectory ? "d" : stat.isSymbolicLink ? "l" : "-";
  let text = type;
  for (let shift = 6; shift >= 0; shift -= 3) {
    const part = (bits >> shift) & 7;
    text += (part & 4 ? "r" : "-") + (part & 2 ? "w" : "-") + (part & 1 ? "x" : "-");
  }
  return text;
}

/** `Mon dd HH:MM` within six months of now, `Mon dd  YYYY` otherwise, in local time. */
export function lsDate(mtime: Date, now = Date.now()): string {
  const day = String(mtime.getDate()).padStart(2);
  const recent = mtime.getTime() > now - SIX_MONTHS_MS && mtime.getTime() <= now + 60_000;
  const tail = recent
    ? `${String(mtime.getHours()).padStart(2, "0")}:${String(mtime.getMinutes()).padStart(2, "0")}`
    : ` ${mtime.getFullYear()}`;
  return `${MONTHS[mtime.getMonth()]} ${day} ${tail}`;
}

export function sizeText(entry: LongEntry, human: boolean): string {
  const bytes = entry.stat.isDirectory ? DIRECTORY_BYTES : entry.stat.size;
  return human ? humanSize(bytes) : String(bytes);
}

export function longLines(entries: readonly LongEntry[], human: boolean): string[] {
  const links = entries.map((entry) => String(entry.stat.isDirectory ? 2 + entry.subdirectories : 1));
  const sizes = entries.map((entry) => sizeText(entry, human));
  const linkWidth = Math.max(0, ...links.map((text) => text.length));
  const sizeWidth = Math.max(0, ...sizes.map((text) => text.length));
  const { user, group } = processOwner();
  return entries.map(
    (entry, i) =>
      `${modeString(entry.stat)} ${links[i]!.padStart(linkWidth)} ${user} ${group} ${sizes[i]!.padStart(sizeWidth)} ${lsDate(entry.stat.mtime)} ${entry.name}`,
  );
}
