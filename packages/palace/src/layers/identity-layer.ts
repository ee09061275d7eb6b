import { palaceCore } from "../core/palace-core.js";
import type { Palace } from "../palace.js";
import { checkLayerScope, type LayerScope, layerDrawerSql, layerGraph } from "./layer-options.js";
import { DEFAULT_USER_ENTITY, IDENTITY_MAX_PEOPLE, USER_FACTS } from "./layer-tuning.js";

/** L0: who the user (or agent) is. */
export interface IdentityLayer {
  /** palace.json's identity text, one entry per non-empty line; else one derived line naming the people. */
  identity: string[];
  /** True when no identity text is set and `identity` was derived from the drawers. */
  derived: boolean;
  /** The people of the scope: the speakers of its drawers, most turns first. */
  people: string[];
  /** Facts true now about the user entity, as rendered lines ("Caroline — lives_in → Boston"). */
  userFacts: string[];
}

/**
 * L0. The identity text from palace.json when there is one; otherwise derived from what is filed:
 * the people of the wing (the speakers of its conversations). Either way, the knowledge graph's
 * current facts about the user entity.
 */
export function identityLayer(palace: Palace, scope: LayerScope = {}): IdentityLayer {
  const checked = checkLayerScope(scope, palace.limits);
  const { wing, user, access } = checked;
  const { db } = palaceCore(palace);
  const where = layerDrawerSql(checked);
  const people = (
    db
      .prepare(
        `SELECT speaker FROM drawers d WHERE speaker IS NOT NULL AND ${where.sql} GROUP BY speaker ORDER BY COUNT(*) DESC, speaker LIMIT ?`,
      )
      .all(...where.params, IDENTITY_MAX_PEOPLE) as { speaker: string }[]
  ).map((row) => row.speaker);
  // palace.json's identity is the owner's: an identity with narrower grants derives its own.
  const ownIdentity = access === undefined || access.isAdmin ? palace.identity : undefined;
  const text = (ownIdentity ?? "")
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "");
  const derived = text.length === 0;
  const identity =
    derived && people.length > 0
      ? [`People${wing === undefined ? "" : ` in ${wing}`}: ${people.join(", ")}.`]
      : text;
  return {
    identity,
    derived,
    people,
    userFacts: layerGraph(palace, checked).factsFor(user ?? DEFAULT_USER_ENTITY, USER_FACTS),
  };
}
