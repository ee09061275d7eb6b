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

/**
 * The knowledge graph's failures, in the palace's error family (match on `palaceCode`). Bad
 * input is spec's `ValidationError` (code "VALIDATION", it names every field); these cover the
 * rest.
 */

/** An entity or fact the caller named does not exist (or is no longer open). */
export class KnowledgeGraphNotFoundError extends PalaceError {
  constructor(message: string, options: AtriumErrorOptions = {}) {
    super("palace/not-found", message, options);
  }
}

/**
 * A request that contradicts what is stored: an alias already naming another entity, an imported
 * triple id holding a different fact, ending a fact that already ended. Not fatal: an agent sees
 * it and corrects the call. Not thrown for conflicting facts of single-valued predicates: `add`
 * reports those as values.
 */
export class KnowledgeGraphConflictError extends PalaceError {
  constructor(message: string, options: AtriumErrorOptions = {}) {
    super("palace/conflict", message, { isFatal: false, ...options });
  }
}

/** The stored graph is in a shape this version cannot read (a newer schema). */
export class KnowledgeGraphFormatError extends PalaceError {
  constructor(message: string, options: AtriumErrorOptions = {}) {
    super("palace/format", message, options);
  }
}

/** Where in an export file: "line 3, column 14", "conversation 2". */
export type ExportPosition = string;

/**
 * A file a miner cannot read at all: invalid JSON, a top-level shape no format has, a transcript
 * with no message in it. It names the position so the user can open the file there; the mining
 * run reports it with the file's name and goes on with the other files.
 */
export class ExportParseError extends AtriumError {
  readonly position: ExportPosition | undefined;
  /** The message without the position. */
  readonly detail: string;

  constructor(position: ExportPosition | undefined, detail: string, options: AtriumErrorOptions = {}) {
    super("PARSE", position === undefined ? detail : `${position}: ${detail}`, options);
    this.position = position;
    this.detail = detail;
  }
}
