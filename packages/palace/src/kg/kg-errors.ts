import { AtriumError, type AtriumErrorOptions } from "@atrium/spec";

/**
 * The knowledge graph's failures. Bad input is spec's `ValidationError` (it names every field);
 * these cover the rest. Each extends spec's error base, so `code`, `isRetryable`, `isFatal` and
 * `rethrowIfFatal` work as everywhere else.
 */

/** An entity or fact the caller named does not exist (or is no longer open). */
export class KnowledgeGraphNotFoundError extends AtriumError {
  constructor(message: string, options: AtriumErrorOptions = {}) {
    super("NOT_FOUND", message, options);
  }
}

/**
 * A request that contradicts what is stored: an alias already naming another entity, an imported
 * triple id holding a different fact, ending a fact before it began. Not thrown for conflicting
 * facts of single-valued predicates: `add` reports those as values.
 */
export class KnowledgeGraphConflictError extends AtriumError {
  constructor(message: string, options: AtriumErrorOptions = {}) {
    super("VALIDATION", message, options);
  }
}

/** The stored graph is in a shape this version cannot read (a newer schema, a corrupt row). */
export class KnowledgeGraphFormatError extends AtriumError {
  constructor(message: string, options: AtriumErrorOptions = {}) {
    super("CONFIG", message, options);
  }
}
