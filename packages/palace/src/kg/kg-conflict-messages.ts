import { renderSpan } from "./kg-fact-lines.js";
import type { Triple } from "./kg-types.js";

/**
 * The sentences `add` returns with each conflict of a single-valued predicate. They are read by
 * models (through the agent tools and the MCP server) as much as by people, so each names both
 * facts and the call that resolves it.
 */

function held(existing: Triple): string {
  return `${existing.object}${renderSpan(existing, " (time unknown)")}`;
}

export function refusedMessage(existing: Triple, newObject: string): string {
  return `${existing.subject} ${existing.predicate} is single-valued and already holds ${held(existing)}, so ${newObject} was not stored; to record a change add it with onConflict "invalidate" (ends the old fact where the new one begins), or invalidate ${existing.id} first`;
}

export function unresolvableMessage(existing: Triple, newObject: string, endsAt: string): string {
  const why =
    existing.validTo !== undefined
      ? "it has an end time of its own that overlaps the new fact"
      : "it begins at or after the new fact";
  return `${existing.subject} ${existing.predicate} is single-valued and holds ${held(existing)}; it cannot be ended at ${endsAt} because ${why}, so ${newObject} was not stored; adjust validFrom/validTo, or invalidate ${existing.id} with an explicit time`;
}

export function invalidatedMessage(existing: Triple, newObject: string): string {
  return `${existing.subject} ${existing.predicate} ${held(existing)} was ended, replaced by ${newObject}`;
}

export function keptBothMessage(existing: Triple, newObject: string): string {
  return `${existing.subject} ${existing.predicate} is single-valued but now holds both ${held(existing)} and ${newObject}; invalidate the one that is wrong`;
}
