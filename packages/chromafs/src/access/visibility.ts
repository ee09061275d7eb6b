import type { Access } from "../doc-store/doc-store.js";
import type { PathTree, PathTreeFile } from "../tree/path-tree.js";

/** Public pages (no groups) are visible to everyone; others need one shared group. */
export function isVisible(file: Pick<PathTreeFile, "groups">, access: Access): boolean {
  const groups = file.groups;
  if (!groups || groups.length === 0) return true;
  return groups.some((group) => access.groups.includes(group));
}

/** The tree as `access` sees it: hidden pages are removed, so their directories vanish too. */
export function pruneTree(tree: PathTree, access: Access): PathTree {
  const files: PathTree["files"] = {};
  for (const [path, file] of Object.entries(tree.files)) {
    if (isVisible(file, access)) files[path] = file;
  }
  return { version: tree.version, files };
}

/** A stable key for a set of groups, so sessions of the same groups share one pruned index. */
export function accessKey(access: Access): string {
  return [...new Set(access.groups)].sort().join("\u0000");
}
