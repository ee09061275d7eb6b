import { isoTimeProblem, parseIsoTime } from "@atrium/spec";
import { invalidInput } from "../errors.js";
import type { PalaceLimits } from "../limits.js";
import type { DrawerDraft, DrawerMetadata } from "./drawer.js";
import { checkExportLine } from "./export-line.js";
import { nameProblem, textProblem } from "./text-checks.js";

/** A draft checked and completed: hall and timestamp filled in, the time in milliseconds. */
export interface CheckedDraft extends DrawerDraft {
  hall: string;
  timestamp: string;
  timestampMs: number;
}

/** The hall a drawer gets when its draft names none. */
export const DEFAULT_HALL = "general";

/**
 * Checks one draft against the limits, naming the offending field (`field` is its place in the
 * caller's input, e.g. "drafts[3]"). Content is kept exactly as given, whitespace included; only
 * content with no visible character is refused.
 */
export function checkDraft(
  draft: DrawerDraft,
  field: string,
  limits: PalaceLimits,
  now: string,
): CheckedDraft {
  if (typeof draft !== "object" || draft === null) throw invalidInput(field, "must be an object");
  const { content } = draft;
  if (typeof content !== "string" || content.trim() === "") {
    throw invalidInput(`${field}.content`, "must be non-empty text");
  }
  if (content.length > limits.maxDrawerChars) {
    throw invalidInput(
      `${field}.content`,
      `has ${content.length} characters, more than maxDrawerChars (${limits.maxDrawerChars}); split it into smaller drawers`,
    );
  }
  const contentProblem = textProblem(content);
  if (contentProblem !== undefined) throw invalidInput(`${field}.content`, contentProblem);
  checkName(draft.wing, `${field}.wing`, limits, true);
  checkName(draft.room, `${field}.room`, limits, true);
  for (const key of ["hall", "source", "speaker", "turnId", "sessionId"] as const) {
    checkName(draft[key], `${field}.${key}`, limits, false);
  }
  if (draft.position !== undefined && !(Number.isInteger(draft.position) && draft.position >= 0)) {
    throw invalidInput(`${field}.position`, `must be a non-negative integer, got ${String(draft.position)}`);
  }
  const timestamp = draft.timestamp ?? now;
  if (typeof timestamp !== "string") throw invalidInput(`${field}.timestamp`, "must be an ISO 8601 time");
  let timestampMs: number;
  try {
    timestampMs = parseIsoTime(timestamp, `${field}.timestamp`);
  } catch {
    throw invalidInput(
      `${field}.timestamp`,
      `${isoTimeProblem(timestamp) ?? `${JSON.stringify(timestamp)} is not an ISO 8601 time`}; write e.g. 2024-05-01T09:30:00Z`,
    );
  }
  if (draft.metadata !== undefined) checkMetadata(draft.metadata, `${field}.metadata`, limits);
  checkExportLine(draft, field, limits);
  return { ...draft, hall: draft.hall ?? DEFAULT_HALL, timestamp, timestampMs };
}

/** A wing, room, hall, source, speaker, turn or session id: non-empty, bounded, no control characters. */
export function checkName(value: unknown, field: string, limits: PalaceLimits, required: boolean): void {
  if (value === undefined && !required) return;
  if (typeof value !== "string" || value.trim() === "") throw invalidInput(field, "must be non-empty text");
  if (value.length > limits.maxNameChars) {
    throw invalidInput(
      field,
      `has ${value.length} characters, more than maxNameChars (${limits.maxNameChars})`,
    );
  }
  const problem = nameProblem(value);
  if (problem !== undefined) throw invalidInput(field, problem);
}

export function checkMetadata(metadata: unknown, field: string, limits: PalaceLimits): DrawerMetadata {
  if (typeof metadata !== "object" || metadata === null || Array.isArray(metadata)) {
    throw invalidInput(field, "must be an object of strings, numbers and booleans");
  }
  const entries = Object.entries(metadata);
  if (entries.length > limits.maxMetadataKeys) {
    throw invalidInput(
      field,
      `has ${entries.length} keys, more than maxMetadataKeys (${limits.maxMetadataKeys})`,
    );
  }
  for (const [key, value] of entries) {
    const keyProblem = textProblem(key);
    if (keyProblem !== undefined) throw invalidInput(`${field} key ${JSON.stringify(key)}`, keyProblem);
    const valueProblem = typeof value === "string" ? textProblem(value) : undefined;
    if (valueProblem !== undefined) throw invalidInput(`${field}.${key}`, valueProblem);
    const ok =
      typeof value === "string" ||
      typeof value === "boolean" ||
      (typeof value === "number" && Number.isFinite(value));
    if (!ok)
      throw invalidInput(
        `${field}.${key}`,
        "must be a string, a finite number or a boolean (no arrays or objects)",
      );
  }
  return metadata as DrawerMetadata;
}
