import { PalaceAccess } from "../access/palace-access.js";
import { invalidInput } from "../errors.js";
import type { KnowledgeGraph } from "../kg/knowledge-graph.js";
import type { PalaceLimits } from "../limits.js";
import type { Palace } from "../palace.js";

/** Which part of the palace a layer looks at, and who the user is. */
export interface LayerScope {
  /** Only this wing's drawers and people; default: the whole palace. */
  wing?: string;
  /**
   * The knowledge-graph entity that is the user: a name or an alias (default "user", so giving
   * the user's entity the alias "user" is enough).
   */
  user?: string;
  /** Only what these grants read (a `PalaceView` passes its own); default: the whole palace. */
  access?: PalaceAccess;
}

export function checkLayerScope(scope: LayerScope, limits: Readonly<PalaceLimits>): LayerScope {
  if (typeof scope !== "object" || scope === null) throw invalidInput("options", "must be an object");
  const checked: LayerScope = {};
  for (const key of ["wing", "user"] as const) {
    const value = scope[key];
    if (value === undefined) continue;
    if (typeof value !== "string" || value.trim() === "" || value.length > limits.maxNameChars) {
      throw invalidInput(
        key,
        `must be non-empty text of at most maxNameChars (${limits.maxNameChars}) characters`,
      );
    }
    checked[key] = value;
  }
  const access = scope.access;
  if (access !== undefined && !access.isAdmin) {
    if (checked.wing !== undefined && !access.seesWing(checked.wing))
      access.assertRead(checked.wing, undefined, "wing");
    checked.access = access;
  }
  return checked;
}

/**
 * The knowledge graph a layer reads: what the grants read, and only the scope's wing when one is
 * given (the wake-up of a wing says nothing from other wings).
 */
export function layerGraph(palace: Palace, scope: LayerScope): KnowledgeGraph {
  if (scope.wing !== undefined) {
    const who = scope.access?.who ?? "the palace owner";
    const wholeWing = scope.access === undefined || scope.access.canRead(scope.wing);
    return palace.kg.scoped(PalaceAccess.of({ read: wholeWing ? [scope.wing] : [] }, who));
  }
  return scope.access === undefined ? palace.kg : palace.kg.scoped(scope.access);
}

/** SQL confining `drawers d` to the scope: its wing and what its grants read. */
export function layerDrawerSql(scope: LayerScope): { sql: string; params: string[] } {
  const parts: string[] = [];
  const params: string[] = [];
  if (scope.wing !== undefined) {
    parts.push("d.wing = ?");
    params.push(scope.wing);
  }
  const confined = scope.access?.readSql("d");
  if (confined) {
    parts.push(confined.sql);
    params.push(...confined.params);
  }
  return { sql: parts.length === 0 ? "1 = 1" : parts.join(" AND "), params };
}
