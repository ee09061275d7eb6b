import { invalidInput } from "../errors.js";
import type { PalaceLimits } from "../limits.js";

/** Which part of the palace a layer looks at, and who the user is. */
export interface LayerScope {
  /** Only this wing's drawers and people; default: the whole palace. */
  wing?: string;
  /**
   * The knowledge-graph entity that is the user: a name or an alias (default "user", so giving
   * the user's entity the alias "user" is enough).
   */
  user?: string;
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
  return checked;
}
