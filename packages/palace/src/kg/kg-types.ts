/**
 * The knowledge graph's public shapes. A fact is a triple (subject, predicate, object) between
 * two entities, true over [validFrom, validTo): a missing `validFrom` means "since an unknown
 * time", a missing `validTo` means "still true" (an open fact).
 */

/** A person, place, project, thing or value facts are about. */
export interface Entity {
  /** The wing it belongs to: each wing has its own entities, so one wing's "alice" is not another's. */
  wing: string;
  /** The name as first given (compatibility-normalized, whitespace collapsed). */
  name: string;
  type?: string;
  /** Other names that resolve to this entity, in the order they were added. */
  aliases: string[];
  createdAt: string;
}

/** What `upsertEntity` takes: a missing entity is created, an existing one gains type and aliases. */
export interface EntityInput {
  /** The wing (default: the caller's one writable wing; for the palace's owner "facts"). */
  wing?: string;
  name: string;
  type?: string;
  aliases?: string[];
}

/** A fact to add. Entity names resolve through aliases; unknown ones are created. */
export interface FactInput {
  /** The wing the fact belongs to (default: the caller's one writable wing; for the palace's owner "facts"). */
  wing?: string;
  subject: string;
  predicate: string;
  object: string;
  /** ISO 8601 (also `YYYY` or `YYYY-MM`): when it became true. */
  validFrom?: string;
  /** ISO 8601: when it stopped being true; leave out for a fact that still holds. */
  validTo?: string;
  /** The drawer the fact was read from, so an answer can cite its evidence. */
  sourceDrawerId?: string;
  /** 0..1, how sure the writer was. */
  confidence?: number;
  /** Type given to the subject entity if it is new or has none yet. */
  subjectType?: string;
  /** Type given to the object entity if it is new or has none yet. */
  objectType?: string;
}

/** A stored fact. `subject` and `object` are the entities' display names. */
export interface Triple {
  /** Stable id ("t_" + 24 hex), kept through export and import. */
  id: string;
  /** The wing it belongs to; only identities that read the wing see it. */
  wing: string;
  subject: string;
  predicate: string;
  object: string;
  validFrom?: string;
  validTo?: string;
  sourceDrawerId?: string;
  confidence?: number;
  createdAt: string;
}

/**
 * What `add` does when the fact contradicts a stored one of a single-valued predicate:
 * "report" (default) stores nothing and returns the conflict; "invalidate" ends the old fact
 * where the new one begins (a new fact without `validFrom` is then taken to begin now, and is
 * stored so, whether or not anything conflicted); "keep-both" stores the new fact beside the
 * old one and still reports the conflict. An old fact that cannot end there (it began at or
 * after the new one, or has an end of its own overlapping it) makes "invalidate" refuse.
 */
export type ConflictPolicy = "report" | "invalidate" | "keep-both";

export interface AddFactOptions {
  onConflict?: ConflictPolicy;
}

/** A stored fact the new one contradicts, and what became of it. */
export interface FactConflict {
  /** The stored fact as it is after the call (its `validTo` set when it was invalidated). */
  existing: Triple;
  /** "refused": the new fact was not stored; "invalidated": the old one was ended; "kept-both". */
  resolution: "refused" | "invalidated" | "kept-both";
  /** One sentence naming both facts and what to do, fit to show a model. */
  message: string;
}

export interface AddFactResult {
  /** The stored fact: the new one, or the identical one already there; undefined when refused. */
  triple: Triple | undefined;
  /** False when nothing new was stored (an identical fact exists, or a conflict refused it). */
  created: boolean;
  conflicts: FactConflict[];
}

/** Which facts to end: a fact id, or every open fact matching subject, predicate and object. */
export type InvalidateTarget = string | { subject: string; predicate: string; object: string };

export interface InvalidateOptions {
  /** ISO 8601 time the facts stop being true; defaults to now. */
  at?: string;
  /** For a { subject, predicate, object } target: the wing whose facts to end (default as for `add`). */
  wing?: string;
}

export interface KnowledgeGraphQuery {
  /** Only this wing's facts (it must be readable); default: every wing the caller reads. */
  wing?: string;
  subject?: string;
  predicate?: string;
  object?: string;
  /** ISO 8601: only facts true at that time (validFrom ≤ t < validTo). Leave out for all facts, past and present. */
  asOf?: string;
  /** At most this many rows (capped by the `maxQueryFacts` limit). */
  limit?: number;
}

export interface NeighboursOptions {
  /** ISO 8601: walk only facts true at that time. */
  asOf?: string;
  /** Start from this wing's entity of that name (default: the first readable wing that has one). */
  wing?: string;
}

/** An entity reached from the start of `neighbours`, and how many hops away. */
export interface NeighbourNode {
  name: string;
  type?: string;
  depth: number;
}

export interface Neighbourhood {
  /** The start entity's display name. */
  entity: string;
  /** Every entity reached, the start first (depth 0), then by depth and name. */
  nodes: NeighbourNode[];
  /** The facts walked, each once. */
  edges: Triple[];
  /** True when `maxTraversalNodes` stopped the walk before `depth` was exhausted. */
  truncated: boolean;
}

export interface KnowledgeGraphStats {
  entities: number;
  aliases: number;
  triples: number;
  /** Facts with no `validTo`. */
  openTriples: number;
  /** Facts with a `validTo`. */
  endedTriples: number;
  /** Distinct predicates in use. */
  predicates: number;
  /** Predicates declared single-valued, sorted. */
  singleValuedPredicates: string[];
  /** The most used predicates, most first (at most ten). */
  topPredicates: Array<{ predicate: string; count: number }>;
}

/** One line of the palace's JSONL export; `import` takes these back, losslessly. */
export type KnowledgeGraphRow =
  | { kind: "kg-entity"; wing?: string; name: string; type?: string; aliases: string[]; createdAt: string }
  | { kind: "kg-predicate"; name: string; singleValued: boolean }
  | ({ kind: "kg-triple" } & Triple);

export interface KnowledgeGraphImportResult {
  entities: number;
  predicates: number;
  /** Triples stored by this import. */
  triples: number;
  /** Triples already present with the same id and the same content. */
  skipped: number;
}
