import type { Where } from "@atrium/chroma";
import { groupKey, PUBLIC_KEY } from "../../collection-schema/access-keys.js";
import type { Access } from "../../doc-store/doc-store.js";
import { ACCESS_LIST_MAX_PATHS } from "../../tuning.js";
import { isVisibleIn, type TreeSnapshot, visiblePaths } from "./tree-snapshot.js";

/**
 * The `where` every query of `access` carries: nothing when the tree hides no page; else the
 * page list the tree hides (`page $nin [...]`), or `page $in [visible]` when that is shorter,
 * because the pinned server evaluates those several times faster than the per-group boolean
 * keys every chunk also carries (used beyond ACCESS_LIST_MAX_PATHS).
 */
export function accessWhereFor(snapshot: TreeSnapshot, access: Access): Where | undefined {
  const hidden: string[] = [];
  for (const path of Object.keys(snapshot.tree.files)) {
    if (!isVisibleIn(snapshot, path, access)) hidden.push(path);
  }
  if (hidden.length === 0) return undefined;
  if (hidden.length <= ACCESS_LIST_MAX_PATHS) return pathListWhere("$nin", hidden);
  const visible = visiblePaths(snapshot, access);
  if (visible.length <= ACCESS_LIST_MAX_PATHS) return pathListWhere("$in", visible);
  return accessWhere(access);
}

export function pathListWhere(operator: "$in" | "$nin", paths: string[]): Where {
  return { page: { [operator]: paths } } as unknown as Where;
}

/** The boolean-key access filter: `{public: true}` or any of the caller's groups (a single clause can't be wrapped in `$or`). */
export function accessWhere(access: Access): Where {
  const clauses: Where[] = [{ [PUBLIC_KEY]: true }];
  for (const group of new Set(access.groups)) clauses.push({ [groupKey(group)]: true });
  return clauses.length === 1 ? (clauses[0] as Where) : { $or: clauses };
}
