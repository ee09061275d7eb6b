import { shortFactTime } from "./kg-time.js";
import type { Triple } from "./kg-types.js";

/**
 * A fact as one short line for a wake-up context or a model observation:
 * "Caroline — lives_in → Boston (since 2023-05)". Dates keep the precision they were given.
 */
export function renderFact(triple: Triple): string {
  return `${triple.subject} — ${triple.predicate} → ${triple.object}${renderSpan(triple, "")}`;
}

/** " (since 2023-05)", " (2019 – 2021)", " (until 2024-01)", or `none` when no time is known. */
export function renderSpan(triple: Pick<Triple, "validFrom" | "validTo">, none: string): string {
  const from = triple.validFrom === undefined ? undefined : shortFactTime(triple.validFrom);
  const to = triple.validTo === undefined ? undefined : shortFactTime(triple.validTo);
  if (from !== undefined && to !== undefined) return ` (${from} – ${to})`;
  if (from !== undefined) return ` (since ${from})`;
  if (to !== undefined) return ` (until ${to})`;
  return none;
}
