/**
 * Rooms for a project from its folders. A file's room is its first meaningful folder ("src",
 * "packages", "lib" and the like say nothing about the topic and are passed over). A room that
 * would hold more than `maxShare` of the project is split by the next meaningful folder, again
 * and again, so one big folder cannot swallow the palace (MemPalace filed nearly everything under
 * one room). Rooms are planned over the whole file list before mining, from estimated drawer
 * counts, because a room's size is only known once every file is seen.
 */

/** Folder names that group code by role, not topic. */
const GENERIC_FOLDERS = new Set([
  "src",
  "source",
  "sources",
  "lib",
  "libs",
  "packages",
  "package",
  "pkg",
  "pkgs",
  "apps",
  "internal",
  "modules",
  "main",
  "app",
  "com",
  "org",
  "net",
  "io",
  "corpora",
]);

export interface PlannedFile {
  path: string;
  /** Estimated drawers the file will give. */
  weight: number;
}

/** The largest share of a project's drawers one folder room may hold before it is split. */
export const DEFAULT_FOLDER_ROOM_MAX_SHARE = 0.2;

/** Room name (undefined: no meaningful folder) for every planned path. */
export function planFolderRooms(
  files: readonly PlannedFile[],
  maxShare = DEFAULT_FOLDER_ROOM_MAX_SHARE,
): Map<string, string | undefined> {
  const folders = files.map((file) => meaningfulFolders(file.path));
  const depth = files.map((_, index) => Math.min(1, folders[index]!.length));
  const total = files.reduce((sum, file) => sum + file.weight, 0);
  const keyOf = (index: number) => folders[index]!.slice(0, depth[index]).join("/");
  for (let changed = true; changed; ) {
    changed = false;
    const weights = new Map<string, number>();
    files.forEach((file, index) => {
      const key = keyOf(index);
      if (key !== "") weights.set(key, (weights.get(key) ?? 0) + file.weight);
    });
    files.forEach((_, index) => {
      const key = keyOf(index);
      if (key === "" || (weights.get(key) ?? 0) <= maxShare * total) return;
      if (depth[index]! < folders[index]!.length) {
        depth[index]!++;
        changed = true;
      }
    });
  }
  const keys = files.map((_, index) => keyOf(index));
  const names = roomNames(new Set(keys.filter((key) => key !== "")));
  return new Map(
    files.map((file, index) => [file.path, keys[index] === "" ? undefined : names.get(keys[index]!)]),
  );
}

/** The folders of a path that name a topic, slugged ("Mintlify Docs" → "mintlify-docs"). */
export function meaningfulFolders(path: string): string[] {
  const segments = path.split("/").slice(0, -1);
  return segments.map(slug).filter((segment) => segment !== "" && !GENERIC_FOLDERS.has(segment));
}

export function slug(name: string): string {
  return name
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 64);
}

/**
 * Short names for folder keys: the last folder's name, widened by its parents only where two
 * keys would otherwise share a name ("docs/api" and "server/api" → "docs-api", "server-api").
 */
function roomNames(keys: Set<string>): Map<string, string> {
  const names = new Map<string, string>();
  const parts = new Map([...keys].map((key) => [key, key.split("/")]));
  let width = 1;
  let unresolved = [...keys];
  while (unresolved.length > 0) {
    const candidates = new Map<string, string[]>();
    for (const key of unresolved) {
      const name = parts.get(key)!.slice(-width).join("-");
      candidates.set(name, [...(candidates.get(name) ?? []), key]);
    }
    const next: string[] = [];
    for (const [name, owners] of candidates) {
      const fullyWide = owners.every((owner) => parts.get(owner)!.length <= width);
      if (owners.length === 1 || fullyWide) for (const owner of owners) names.set(owner, name);
      else next.push(...owners);
    }
    unresolved = next;
    width++;
  }
  return names;
}
