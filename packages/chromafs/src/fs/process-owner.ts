import { readFileSync } from "node:fs";
import { userInfo } from "node:os";

/** Who a page belongs to in `ls -l` and `stat`: the user running ChromaFs (see `processOwner`). */
export interface Owner {
  user: string;
  group: string;
  uid: number;
  gid: number;
}

let cached: Owner | undefined;

/** The name `/etc/group` gives `gid`, or null (no such file, no such group). */
function groupName(gid: number): string | null {
  try {
    for (const line of readFileSync("/etc/group", "utf8").split("\n")) {
      const [name, , id] = line.split(":");
      if (name && id !== undefined && Number(id) === gid) return name;
    }
  } catch {
    // No group database (Windows, a bare container): the number, as GNU prints an unnamed group.
  }
  return null;
}

/**
 * A collection has no owners, so pages show as owned by the user and group the process runs as,
 * as files the user made would (and as GNU shows a disk copy of the docs the user wrote). Names
 * come from the user and group databases; an id without a name prints as its number, which is
 * what GNU `ls` and `stat` print for one.
 */
export function processOwner(): Owner {
  if (cached) return cached;
  const uid = process.getuid?.() ?? 0;
  const gid = process.getgid?.() ?? 0;
  let user = String(uid);
  try {
    user = userInfo().username;
  } catch {
    // a uid with no passwd entry (containers run as arbitrary uids): the number
  }
  cached = { user, group: groupName(gid) ?? String(gid), uid, gid };
  return cached;
}
