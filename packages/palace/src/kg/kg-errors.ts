import type { AtriumErrorOptions } from "@atrium/spec";
import { PalaceError } from "../errors.js";

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
