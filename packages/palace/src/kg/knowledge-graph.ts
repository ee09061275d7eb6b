import { PalaceAccess } from "../access/palace-access.js";
import type { SqlDatabase } from "../db/sql/sql-database.js";
import { type KnowledgeGraphLimits, resolveKnowledgeGraphLimits } from "../limits.js";
import { KgContext } from "./kg-context.js";
import { findEntity, upsertEntity } from "./kg-entities.js";
import { exportGraph, importGraph } from "./kg-export-import.js";
import { addFact, invalidateFacts } from "./kg-facts.js";
import { type KnowledgeGraphSchemas, knowledgeGraphSchemas } from "./kg-input.js";
import { declarePredicate, isSingleValued, listPredicates } from "./kg-predicates.js";
import { factEntries, graphStats, neighbours, queryFacts, timeline } from "./kg-queries.js";
import { createKnowledgeGraphTables, type KnowledgeGraphMigration } from "./kg-schema.js";
import { type KgStatements, prepareKgStatements } from "./kg-statements.js";
import type {
  AddFactOptions,
  AddFactResult,
  Entity,
  EntityInput,
  FactInput,
  InvalidateOptions,
  InvalidateTarget,
  KnowledgeGraphImportResult,
  KnowledgeGraphQuery,
  KnowledgeGraphRow,
  KnowledgeGraphStats,
  Neighbourhood,
  NeighboursOptions,
  Triple,
} from "./kg-types.js";

export interface KnowledgeGraphOptions {
  /** Predicates to declare single-valued (persisted, as `declarePredicate` does). */
  singleValuedPredicates?: string[];
  limits?: Partial<KnowledgeGraphLimits>;
  /** The clock (tests pin it); defaults to the system time. */
  now?: () => Date;
}

/**
 * A temporal knowledge graph in the palace's store (its SQLite file or PostgreSQL database):
 * entities (with aliases) and facts between them that hold over a time span. It never
 * overwrites: ending a fact records when it stopped being true, so `query({ asOf })` answers what
 * was known at any time, and a fact that contradicts an open one of a single-valued predicate is
 * reported instead of replacing it.
 *
 * Every write is one immediate transaction (a savepoint when the caller already holds one), so
 * concurrent writers in other processes are serialized (by SQLite's lock, or the palace's
 * PostgreSQL advisory lock) and the check-then-insert of `add` cannot race.
 *
 * A facade over the predicate registry (`kg-predicates.ts`), entities and their aliases
 * (`kg-entities.ts`), facts (`kg-facts.ts`), queries (`kg-queries.ts`) and the export and import
 * (`kg-export-import.ts`), all working on one `KgContext`.
 */
export class KnowledgeGraph {
  readonly limits: Readonly<KnowledgeGraphLimits>;
  /** What opening this graph migrated (facts of an older palace moved to a wing), if anything. */
  readonly migration: KnowledgeGraphMigration | undefined;
  readonly #ctx: KgContext;

  /**
   * Opens the graph in `db` (making or migrating its tables) with every wing readable and
   * writable: the palace owner's view. `scoped` gives an identity's view of the same graph.
   */
  constructor(db: SqlDatabase, options: KnowledgeGraphOptions = {}, shared?: SharedGraph) {
    this.limits = resolveKnowledgeGraphLimits(options.limits);
    this.migration = shared ? undefined : createKnowledgeGraphTables(db);
    this.#ctx = new KgContext(
      db,
      this.limits,
      shared?.schemas ?? knowledgeGraphSchemas(this.limits),
      shared?.statements ?? prepareKgStatements(db),
      shared?.access ?? PalaceAccess.ADMIN,
      options.now ?? (() => new Date()),
    );
    for (const predicate of options.singleValuedPredicates ?? []) {
      this.declarePredicate(predicate, { singleValued: true });
    }
  }

  /**
   * The same graph as `access` sees it: reads return only facts and entities of wings it reads
   * whole, writes go only to wings it writes whole. Facts never cross wings.
   */
  scoped(access: PalaceAccess): KnowledgeGraph {
    const ctx = this.#ctx;
    return new KnowledgeGraph(
      ctx.db,
      { limits: this.limits, now: ctx.now },
      { schemas: ctx.schemas, statements: ctx.statements, access },
    );
  }

  /** Declares (or re-declares) a predicate; single-valued ones get conflict checks in `add`. Persisted. */
  declarePredicate(name: string, options: { singleValued: boolean }): void {
    declarePredicate(this.#ctx, name, options);
  }

  /** Every declared predicate, by name. */
  predicates(): Array<{ name: string; singleValued: boolean }> {
    return listPredicates(this.#ctx);
  }

  isSingleValued(predicate: string): boolean {
    return isSingleValued(this.#ctx, predicate);
  }

  /**
   * The entity a name or alias resolves to (case and spacing ignored), if any: in `options.wing`,
   * else in the first readable wing (by name) that has one.
   */
  entity(name: string, options: { wing?: string } = {}): Entity | undefined {
    return findEntity(this.#ctx, name, options);
  }

  /**
   * Creates the entity if no name or alias resolves to it; sets its type when given and adds the
   * aliases. An alias that already names another entity is refused (merging is not supported).
   */
  upsertEntity(input: EntityInput): Entity {
    return upsertEntity(this.#ctx, input);
  }

  /**
   * Stores a fact unless an identical one already holds (then `created: false` and the stored
   * one). For a single-valued predicate, stored facts with the same subject and another object
   * whose time overlaps the new one are conflicts; `options.onConflict` says what happens
   * (see `ConflictPolicy`). A fact without `validFrom` is compared with what holds now.
   */
  add(fact: FactInput, options: AddFactOptions = {}): AddFactResult {
    return addFact(this.#ctx, fact, options);
  }

  /**
   * Ends facts at `options.at` (default now): the fact with that id, or every open fact with that
   * subject, predicate and object. Nothing is deleted, so `query({ asOf })` still finds them for
   * earlier times. Returns the ended facts.
   */
  invalidate(target: InvalidateTarget, options: InvalidateOptions = {}): Triple[] {
    return invalidateFacts(this.#ctx, target, options);
  }

  /**
   * Facts matching every given field (names resolve through aliases; an unknown name matches
   * nothing), ordered by `validFrom` (unknown first) then insertion. With `asOf`, only facts
   * true at that time.
   */
  query(query: KnowledgeGraphQuery = {}): Triple[] {
    return queryFacts(this.#ctx, query);
  }

  /** Every fact the entity is subject or object of, past and present, by `validFrom` (unknown first). */
  timeline(entity: string, options: { limit?: number; wing?: string } = {}): Triple[] {
    return timeline(this.#ctx, entity, options);
  }

  /**
   * The entities within `depth` hops of `entity` (facts followed in both directions) and the
   * facts between them. Stops widening at the `maxTraversalNodes` limit and says so.
   */
  neighbours(entity: string, depth = 1, options: NeighboursOptions = {}): Neighbourhood {
    return neighbours(this.#ctx, entity, depth, options);
  }

  /** Counts for status displays. */
  stats(): KnowledgeGraphStats {
    return graphStats(this.#ctx);
  }

  /**
   * Facts true now, as short lines for a wake-up context ("Caroline — lives_in → Boston (since
   * 2023-05)"). For an entity: the facts it is subject of, then object of, most recent first
   * (an unknown name gives none). Without one: facts about the most connected entities first.
   */
  factsFor(entity: string | undefined, limit: number): string[] {
    return factEntries(this.#ctx, entity, limit).map((fact) => fact.text);
  }

  /** `factsFor`, each line with the wing its fact belongs to (the wake-up labels facts with it). */
  factEntries(entity: string | undefined, limit: number): { wing: string; text: string }[] {
    return factEntries(this.#ctx, entity, limit);
  }

  /**
   * The whole graph as rows for the palace's JSONL export: predicates, then entities, then
   * triples in insertion order. Read in pages, so a caller may write elsewhere between rows.
   */
  export(): Generator<KnowledgeGraphRow> {
    return exportGraph(this.#ctx);
  }

  /**
   * Takes back rows written by `export` in one transaction (all or nothing): entities merge into
   * ones their name or aliases resolve to, triples keep their ids and times and skip conflict
   * checks (they are a record, not new claims). A triple id already holding the same fact is
   * skipped; one holding a different fact is refused. Each row is validated, errors name its index.
   */
  import(rows: Iterable<unknown>): KnowledgeGraphImportResult {
    return importGraph(this.#ctx, rows);
  }
}

/** What a scoped graph shares with the graph it came from. */
interface SharedGraph {
  schemas: KnowledgeGraphSchemas;
  statements: KgStatements;
  access: PalaceAccess;
}
