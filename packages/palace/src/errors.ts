import { AtriumError, type AtriumErrorOptions, type ErrorCode } from "@atrium/spec";

/**
 * Stable codes of the palace's own failures; match on `palaceCode` (the spec `code` is the
 * coarser family shared by every package).
 */
export type PalaceErrorCode =
  /** The directory is not a palace (no palace.json) or a drawer id names nothing. */
  | "palace/not-found"
  /** A draft, query, filter or option is malformed; the message names the field. */
  | "palace/invalid-input"
  /** palace.json or palace.sqlite is corrupt or from a newer @atrium/palace. */
  | "palace/format"
  /** The palace exists with other settings (another embedding), or init would overwrite one. */
  | "palace/conflict"
  /** A size or count limit of `limits.ts` was reached. */
  | "palace/limit"
  /** The vector index (Chroma) could not be reached; the registry is intact. */
  | "palace/unavailable"
  /** The caller's grants do not cover the wing (or room) it named; see `PalaceAccess`. */
  | "palace/forbidden";

const FAMILY: Record<PalaceErrorCode, ErrorCode> = {
  "palace/not-found": "NOT_FOUND",
  "palace/invalid-input": "VALIDATION",
  "palace/format": "CONFIG",
  "palace/conflict": "CONFIG",
  "palace/limit": "LIMIT_EXCEEDED",
  "palace/unavailable": "UNAVAILABLE",
  "palace/forbidden": "SECURITY",
};

export class PalaceError extends AtriumError {
  readonly palaceCode: PalaceErrorCode;
  constructor(palaceCode: PalaceErrorCode, message: string, options: AtriumErrorOptions = {}) {
    super(FAMILY[palaceCode], message, {
      // An unreachable index may come back (the server restarts); nothing else is worth retrying.
      isRetryable: palaceCode === "palace/unavailable",
      // A refused wing is an answer the caller can act on (use its own wing), not a reason to stop a run.
      ...(palaceCode === "palace/forbidden" ? { isFatal: false } : {}),
      ...options,
    });
    this.palaceCode = palaceCode;
  }
}

export function isPalaceError(error: unknown, code?: PalaceErrorCode): error is PalaceError {
  return error instanceof PalaceError && (code === undefined || error.palaceCode === code);
}

/** A bad input: `field` (e.g. "drafts[3].content") and what is wrong with it, as one message. */
export function invalidInput(field: string, problem: string): PalaceError {
  return new PalaceError("palace/invalid-input", `${field}: ${problem}`);
}
