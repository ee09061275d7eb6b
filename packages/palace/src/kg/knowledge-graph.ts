import { randomBytes } from "node:crypto";
import { LimitError, ValidationError } from "@atrium/spec";
import type { Database } from "better-sqlite3";
import { PalaceAccess } from "../access/palace-access.js";
import { type KnowledgeGraphLimits, resolveKnowledgeGraphLimits } from "../limits.js";
import {
  invalidatedMessage,
  keptBothMessage,
  refusedMessage,
  unresolvableMessage,
} from "./kg-conflict-messages.js";
import { KnowledgeGraphConflictError, KnowledgeGraphNotFoundError } from "./kg-errors.js";
import { renderFact } from "./kg-fact-lines.js";
import { type KnowledgeGraphSchemas, knowledgeGraphSchemas, parseInput } from "./kg-input.js";
import { entityKey, wingKey } from "./kg-names.js";
import { inWingsSql, TRIPLE_SELECT, TRUE_AT_SQL, type TripleRow, tripleFromRow } from "./kg-rows.js";
import { createKnowledgeGraphTables, DEFAULT_FACT_WING, type KnowledgeGraphMigration } from "./kg-schema.js";
import { type KgStatements, prepareKgStatements } from "./kg-statements.js";
import { parseFactTime } from "./kg-time.js";
import type {
  AddFactOptions,
  AddFactResult,
  Entity,
  EntityInput,
  FactConflict,
  FactInput,
  InvalidateOptions,
  InvalidateTarget,
  KnowledgeGraphImportResult,
  KnowledgeGraphQuery,
  KnowledgeGraphRow,
  KnowledgeGraphStats,
  Neighbourhood,
  NeighbourNode,
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

interface EntityRow {
  id: number;
  key: string;
  wing: string;
  name: string;
  type: string | null;
  created_at: string;
}

/** A fact time as stored: the text as written and its epoch milliseconds. */
interface FactTime {
  text: string;
  ms: number;
}

const SUBJECT = "knowledge graph";

/**
 * A temporal knowledge graph in the palace's SQLite file: entities (with aliases) and facts
 * between them that hold over a time span. It never overwrites: ending a fact records when it
 * stopped being true, so `query({ asOf })` answers what was known at any time, and a fact that
 * contradicts an open one of a single-valued predicate is reported instead of replacing it.
 *
 * Every write is one `BEGIN IMMEDIATE` transaction (a savepoint when the caller already holds
 * one), so concurrent writers in other processes are serialized by SQLite's lock and the
 * check-then-insert of `add` cannot race.
 */
export class KnowledgeGraph {
  readonly limits: Readonly<KnowledgeGraphLimits>;
  /** What opening this graph migrated (facts of an older palace moved to a wing), if anything. */
  readonly migration: KnowledgeGraphMigration | undefined;
  readonly #db: Database;
  readonly #schemas: KnowledgeGraphSchemas;
  readonly #now: () => Date;
  readonly #statements: KgStatements;
  readonly #access: PalaceAccess;

  /**
   * Opens the graph in `db` (making or migrating its tables) with every wing readable and
   * writable: the palace owner's view. `scoped` gives an identity's view of the same graph.
   */
  constructor(db: Database, options: KnowledgeGraphOptions = {}, shared?: SharedGraph) {
    this.limits = resolveKnowledgeGraphLimits(options.limits);
    this.#db = db;
    this.#schemas = shared?.schemas ?? knowledgeGraphSchemas(this.limits);
    this.#now = options.now ?? (() => new Date());
    this.#access = shared?.access ?? PalaceAccess.ADMIN;
    this.migration = shared ? undefined : createKnowledgeGraphTables(db);
    this.#statements = shared?.statements ?? prepareKgStatements(db);
    for (const predicate of options.singleValuedPredicates ?? []) {
      this.declarePredicate(predicate, { singleValued: true });
    }
  }

  /**
   * The same graph as `access` sees it: reads return only facts and entities of wings it reads
   * whole, writes go only to wings it writes whole. Facts never cross wings.
   */
  scoped(access: PalaceAccess): KnowledgeGraph {
    return new KnowledgeGraph(
      this.#db,
      { limits: this.limits, now: this.#now },
      { schemas: this.#schemas, statements: this.#statements, access },
    );
  }

  // ---- predicates -------------------------------------------------------------------------

  /** Declares (or re-declares) a predicate; single-valued ones get conflict checks in `add`. Persisted. */
  declarePredicate(name: string, options: { singleValued: boolean }): void {
    this.#access.assertAdmin("declaring a predicate (it applies to every wing)");
    const predicate = parseInput(this.#schemas.predicate, name, SUBJECT, ["predicate"]);
    const { singleValued } = parseInput(this.#schemas.declareOptions, options, SUBJECT, ["options"]);
    this.#write(() => this.#statements.upsertPredicate.run(predicate, singleValued ? 1 : 0));
  }

  /** Every declared predicate, by name. */
  predicates(): Array<{ name: string; singleValued: boolean }> {
    const rows = this.#statements.allPredicates.all() as Array<{ name: string; single_valued: number }>;
    return rows.map((row) => ({ name: row.name, singleValued: row.single_valued === 1 }));
  }

  isSingleValued(predicate: string): boolean {
    const name = parseInput(this.#schemas.predicate, predicate, SUBJECT, ["predicate"]);
    const row = this.#statements.getPredicate.get(name) as { single_valued: number } | undefined;
    return row?.single_valued === 1;
  }

  // ---- entities ---------------------------------------------------------------------------

  /**
   * The entity a name or alias resolves to (case and spacing ignored), if any: in `options.wing`,
   * else in the first readable wing (by name) that has one.
   */
  entity(name: string, options: { wing?: string } = {}): Entity | undefined {
    const cleaned = parseInput(this.#schemas.entityName("name"), name, SUBJECT, ["name"]);
    const { wing } = parseInput(this.#schemas.entityOptions, options, SUBJECT, ["options"]);
    const [row] = this.#resolveReadable(cleaned, wing);
    return row === undefined ? undefined : this.#entityFromRow(row);
  }

  /**
   * Creates the entity if no name or alias resolves to it; sets its type when given and adds the
   * aliases. An alias that already names another entity is refused (merging is not supported).
   */
  upsertEntity(input: EntityInput): Entity {
    const { wing: asked, name, type, aliases } = parseInput(this.#schemas.entity, input, SUBJECT, ["entity"]);
    const wing = this.#writeWing(asked, "entity.wing");
    return this.#write(() => {
      const row = this.#ensureEntity(wing, name, undefined, this.#nowIso());
      if (type !== undefined && row.type !== type) this.#statements.setEntityType.run(type, row.id);
      for (const alias of aliases ?? []) this.#addAlias(row, alias);
      return this.#entityFromRow(this.#statements.entityById.get(row.id) as EntityRow);
    });
  }

  // ---- facts ------------------------------------------------------------------------------

  /**
   * Stores a fact unless an identical one already holds (then `created: false` and the stored
   * one). For a single-valued predicate, stored facts with the same subject and another object
   * whose time overlaps the new one are conflicts; `options.onConflict` says what happens
   * (see `ConflictPolicy`). A fact without `validFrom` is compared with what holds now.
   */
  add(fact: FactInput, options: AddFactOptions = {}): AddFactResult {
    const input = parseInput(this.#schemas.fact, fact, SUBJECT, ["fact"]);
    const wing = this.#writeWing(input.wing, "fact.wing");
    const { onConflict = "report" } = parseInput(this.#schemas.addOptions, options, SUBJECT, ["options"]);
    let from = input.validFrom === undefined ? undefined : this.#time(input.validFrom, "fact.validFrom");
    const to = input.validTo === undefined ? undefined : this.#time(input.validTo, "fact.validTo");
    return this.#write(() => {
      const nowIso = this.#nowIso();
      // "invalidate" means the new fact replaces the old from its start; without a start that is now.
      if (from === undefined && onConflict === "invalidate") from = { text: nowIso, ms: Date.parse(nowIso) };
      if (from !== undefined && to !== undefined && to.ms < from.ms) {
        throw new ValidationError(SUBJECT, [
          {
            path: ["fact", "validTo"],
            message: `${to.text} is before validFrom ${from.text}; a fact cannot end before it begins`,
          },
        ]);
      }
      const subject = this.#resolve(wing, input.subject);
      const object = this.#resolve(wing, input.object);
      if (subject !== undefined && object !== undefined) {
        const same = this.#sameFact(subject.id, input.predicate, object.id, from, to);
        if (same !== undefined) return { triple: same, created: false, conflicts: [] };
      }
      const conflicts =
        subject !== undefined && this.#singleValued(input.predicate)
          ? this.#overlapping(subject.id, input.predicate, object?.id, from?.ms ?? Date.parse(nowIso), to?.ms)
          : [];
      const objectName = object?.name ?? input.object;
      const store = (): Triple => {
        const subjectRow = this.#ensureEntity(wing, input.subject, input.subjectType, nowIso);
        const objectRow = this.#ensureEntity(wing, input.object, input.objectType, nowIso);
        return this.#insertTriple({
          id: newTripleId(),
          wing,
          subjectId: subjectRow.id,
          predicate: input.predicate,
          objectId: objectRow.id,
          from,
          to,
          sourceDrawerId: input.sourceDrawerId,
          confidence: input.confidence,
          createdAt: nowIso,
        });
      };
      if (conflicts.length === 0) return { triple: store(), created: true, conflicts: [] };
      if (onConflict === "report") {
        return {
          triple: undefined,
          created: false,
          conflicts: conflicts.map((row) => refused(row, objectName)),
        };
      }
      if (onConflict === "keep-both") {
        const triple = store();
        const reported = conflicts.map(
          (row): FactConflict => ({
            existing: tripleFromRow(row),
            resolution: "kept-both",
            message: keptBothMessage(tripleFromRow(row), triple.object),
          }),
        );
        return { triple, created: true, conflicts: reported };
      }
      // "invalidate": every conflict must be an open fact that began before the new one.
      const start = from as FactTime;
      const endable = (row: TripleRow) =>
        row.valid_to_ms === null && (row.valid_from_ms === null || row.valid_from_ms < start.ms);
      if (!conflicts.every(endable)) {
        return {
          triple: undefined,
          created: false,
          conflicts: conflicts.map((row): FactConflict => {
            const existing = tripleFromRow(row);
            return endable(row)
              ? refused(row, objectName)
              : {
                  existing,
                  resolution: "refused",
                  message: unresolvableMessage(existing, objectName, start.text),
                };
          }),
        };
      }
      for (const row of conflicts) this.#statements.endTriple.run(start.text, start.ms, row.id);
      const triple = store();
      const reported = conflicts.map((row): FactConflict => {
        const existing = tripleFromRow(this.#statements.tripleById.get(row.id) as TripleRow);
        return { existing, resolution: "invalidated", message: invalidatedMessage(existing, triple.object) };
      });
      return { triple, created: true, conflicts: reported };
    });
  }

  /**
   * Ends facts at `options.at` (default now): the fact with that id, or every open fact with that
   * subject, predicate and object. Nothing is deleted, so `query({ asOf })` still finds them for
   * earlier times. Returns the ended facts.
   */
  invalidate(target: InvalidateTarget, options: InvalidateOptions = {}): Triple[] {
    const parsedTarget = this.#parseTarget(target);
    const { at: atText, wing: askedWing } = parseInput(this.#schemas.invalidateOptions, options, SUBJECT, [
      "options",
    ]);
    const targetWing =
      typeof parsedTarget === "string" ? undefined : this.#writeWing(askedWing, "options.wing");
    return this.#write(() => {
      const at = atText === undefined ? this.#nowTime() : this.#time(atText, "options.at");
      let rows: TripleRow[];
      if (typeof parsedTarget === "string") {
        const row = this.#statements.tripleById.get(parsedTarget) as TripleRow | undefined;
        // A fact of a wing the caller cannot read is answered as if it did not exist.
        if (row === undefined || !this.#access.canRead(row.wing)) {
          throw new KnowledgeGraphNotFoundError(
            `No fact has id ${parsedTarget}; find fact ids with query or timeline`,
          );
        }
        this.#access.assertWrite(row.wing, undefined, "target");
        if (row.valid_to !== null) {
          throw new KnowledgeGraphConflictError(
            `Fact ${row.id} (${renderFact(tripleFromRow(row))}) already ended at ${row.valid_to}; nothing to invalidate`,
          );
        }
        rows = [row];
      } else {
        const subject = this.#resolve(targetWing as string, parsedTarget.subject);
        const object = this.#resolve(targetWing as string, parsedTarget.object);
        rows =
          subject === undefined || object === undefined
            ? []
            : (this.#statements.openFacts.all({
                subject: subject.id,
                predicate: parsedTarget.predicate,
                object: object.id,
              }) as TripleRow[]);
        if (rows.length === 0) {
          throw new KnowledgeGraphNotFoundError(
            `No open fact "${parsedTarget.subject} ${parsedTarget.predicate} ${parsedTarget.object}"; check the names with query or timeline`,
          );
        }
      }
      for (const row of rows) {
        if (row.valid_from_ms !== null && at.ms < row.valid_from_ms) {
          throw new ValidationError(SUBJECT, [
            {
              path: ["options", "at"],
              message: `${at.text} is before fact ${row.id} began (${row.valid_from}); end it at or after its validFrom`,
            },
          ]);
        }
      }
      for (const row of rows) this.#statements.endTriple.run(at.text, at.ms, row.id);
      return rows.map((row) => tripleFromRow(this.#statements.tripleById.get(row.id) as TripleRow));
    });
  }

  /**
   * Facts matching every given field (names resolve through aliases; an unknown name matches
   * nothing), ordered by `validFrom` (unknown first) then insertion. With `asOf`, only facts
   * true at that time.
   */
  query(query: KnowledgeGraphQuery = {}): Triple[] {
    const q = parseInput(this.#schemas.query, query, SUBJECT, ["query"]);
    if (q.wing !== undefined) this.#access.assertRead(q.wing, undefined, "query.wing");
    const conditions: string[] = [inWingsSql("t")];
    const params: Record<string, string | number | null> = {
      wings: q.wing === undefined ? this.#readableWings() : JSON.stringify([q.wing]),
    };
    for (const role of ["subject", "object"] as const) {
      const name = q[role];
      if (name === undefined) continue;
      const rows = this.#resolveReadable(name, q.wing);
      if (rows.length === 0) return [];
      conditions.push(`t.${role}_id IN (SELECT value FROM json_each(@${role}))`);
      params[role] = JSON.stringify(rows.map((row) => row.id));
    }
    if (q.predicate !== undefined) {
      conditions.push("t.predicate = @predicate");
      params.predicate = q.predicate;
    }
    if (q.asOf !== undefined) {
      conditions.push(TRUE_AT_SQL);
      params.at = this.#time(q.asOf, "query.asOf").ms;
    }
    params.limit = this.#cap(q.limit);
    const where = `WHERE ${conditions.join(" AND ")}`;
    const rows = this.#db
      .prepare(`${TRIPLE_SELECT} ${where} ORDER BY t.valid_from_ms, t.seq LIMIT @limit`)
      .all(params) as TripleRow[];
    return rows.map(tripleFromRow);
  }

  /** Every fact the entity is subject or object of, past and present, by `validFrom` (unknown first). */
  timeline(entity: string, options: { limit?: number; wing?: string } = {}): Triple[] {
    const { limit: asked, wing } = parseInput(this.#schemas.timelineOptions, options, SUBJECT, ["options"]);
    const entities = this.#requireEntities(entity, wing);
    const limit = this.#cap(asked);
    const rows = this.#statements.timeline.all({
      entities: JSON.stringify(entities.map((row) => row.id)),
      wings: this.#readableWings(),
      limit,
    }) as TripleRow[];
    return rows.map(tripleFromRow);
  }

  /**
   * The entities within `depth` hops of `entity` (facts followed in both directions) and the
   * facts between them. Stops widening at the `maxTraversalNodes` limit and says so.
   */
  neighbours(entity: string, depth = 1, options: NeighboursOptions = {}): Neighbourhood {
    const maxDepth = parseInput(this.#schemas.depth, depth, SUBJECT, ["depth"]);
    const { asOf, wing } = parseInput(this.#schemas.neighboursOptions, options, SUBJECT, ["options"]);
    const start = this.#requireEntities(entity, wing)[0] as EntityRow;
    const at = asOf === undefined ? undefined : this.#time(asOf, "options.asOf").ms;
    const edgesSql = `${TRIPLE_SELECT}
      WHERE (t.subject_id IN (SELECT value FROM json_each(@ids)) OR t.object_id IN (SELECT value FROM json_each(@ids)))
      ${at === undefined ? "" : `AND ${TRUE_AT_SQL}`}
      ORDER BY t.seq`;
    const edgesOf = this.#db.prepare(edgesSql);
    const visited = new Map<number, NeighbourNode>([[start.id, this.#node(start, 0)]]);
    const edges = new Map<string, Triple>();
    let frontier = [start.id];
    let truncated = false;
    for (let hop = 1; hop <= maxDepth && frontier.length > 0; hop++) {
      const next: number[] = [];
      const params =
        at === undefined ? { ids: JSON.stringify(frontier) } : { ids: JSON.stringify(frontier), at };
      for (const row of edgesOf.all(params) as TripleRow[]) {
        for (const [id, name] of [
          [row.subject_id, row.subject],
          [row.object_id, row.object],
        ] as const) {
          if (visited.has(id)) continue;
          if (visited.size >= this.limits.maxTraversalNodes) {
            truncated = true;
            continue;
          }
          const entityRow = this.#statements.entityById.get(id) as EntityRow;
          visited.set(id, this.#node({ ...entityRow, name }, hop));
          next.push(id);
        }
        if (visited.has(row.subject_id) && visited.has(row.object_id)) edges.set(row.id, tripleFromRow(row));
      }
      frontier = next;
    }
    const nodes = [...visited.values()].sort((a, b) => a.depth - b.depth || compareText(a.name, b.name));
    return { entity: start.name, nodes, edges: [...edges.values()], truncated };
  }

  /** Counts for status displays. */
  stats(): KnowledgeGraphStats {
    const wings = this.#readableWings();
    const counts = this.#statements.counts.get({ wings }) as {
      entities: number;
      aliases: number;
      triples: number;
      open: number;
      predicates: number;
    };
    const single = this.#statements.singleValued.all() as Array<{ name: string }>;
    const top = this.#statements.topPredicates.all({ wings }) as Array<{ predicate: string; count: number }>;
    return {
      entities: counts.entities,
      aliases: counts.aliases,
      triples: counts.triples,
      openTriples: counts.open,
      endedTriples: counts.triples - counts.open,
      predicates: counts.predicates,
      singleValuedPredicates: single.map((row) => row.name),
      topPredicates: top,
    };
  }

  /**
   * Facts true now, as short lines for a wake-up context ("Caroline — lives_in → Boston (since
   * 2023-05)"). For an entity: the facts it is subject of, then object of, most recent first
   * (an unknown name gives none). Without one: facts about the most connected entities first.
   */
  factsFor(entity: string | undefined, limit: number): string[] {
    return this.factEntries(entity, limit).map((fact) => fact.text);
  }

  /** `factsFor`, each line with the wing its fact belongs to (the wake-up labels facts with it). */
  factEntries(entity: string | undefined, limit: number): { wing: string; text: string }[] {
    const max = Math.min(
      parseInput(this.#schemas.limit, limit, SUBJECT, ["limit"]),
      this.limits.maxFactLines,
    );
    const at = this.#nowTime().ms;
    const wings = this.#readableWings();
    let rows: TripleRow[];
    if (entity === undefined) {
      rows = this.#statements.topFacts.all({ at, limit: max, wings }) as TripleRow[];
    } else {
      const name = parseInput(this.#schemas.entityName("entity"), entity, SUBJECT, ["entity"]);
      const found = this.#resolveReadable(name);
      if (found.length === 0) return [];
      const entities = JSON.stringify(found.map((row) => row.id));
      rows = this.#statements.entityFacts.all({ entities, at, limit: max, wings }) as TripleRow[];
    }
    return rows.map((row) => ({ wing: row.wing, text: renderFact(tripleFromRow(row)) }));
  }

  // ---- export / import --------------------------------------------------------------------

  /**
   * The whole graph as rows for the palace's JSONL export: predicates, then entities, then
   * triples in insertion order. Read in pages, so a caller may write elsewhere between rows.
   */
  *export(): Generator<KnowledgeGraphRow> {
    for (const predicate of this.predicates()) yield { kind: "kg-predicate", ...predicate };
    const wings = this.#readableWings();
    let lastEntity = 0;
    for (;;) {
      const page = this.#statements.entityPage.all({
        after: lastEntity,
        limit: EXPORT_PAGE,
        wings,
      }) as EntityRow[];
      for (const row of page) yield { kind: "kg-entity", ...this.#entityFromRow(row) };
      if (page.length < EXPORT_PAGE) break;
      lastEntity = (page[page.length - 1] as EntityRow).id;
    }
    let lastSeq = 0;
    for (;;) {
      const page = this.#statements.triplePage.all({
        after: lastSeq,
        limit: EXPORT_PAGE,
        wings,
      }) as TripleRow[];
      for (const row of page) yield { kind: "kg-triple", ...tripleFromRow(row) };
      if (page.length < EXPORT_PAGE) break;
      lastSeq = (page[page.length - 1] as TripleRow).seq;
    }
  }

  /**
   * Takes back rows written by `export` in one transaction (all or nothing): entities merge into
   * ones their name or aliases resolve to, triples keep their ids and times and skip conflict
   * checks (they are a record, not new claims). A triple id already holding the same fact is
   * skipped; one holding a different fact is refused. Each row is validated, errors name its index.
   */
  import(rows: Iterable<unknown>): KnowledgeGraphImportResult {
    return this.#write(() => {
      const result: KnowledgeGraphImportResult = { entities: 0, predicates: 0, triples: 0, skipped: 0 };
      let index = 0;
      for (const value of rows) {
        if (index >= this.limits.maxImportRows) {
          throw new LimitError(
            "maxImportRows",
            `An import holds more than ${this.limits.maxImportRows} rows; split it or raise the maxImportRows limit`,
          );
        }
        const row = parseInput(this.#schemas.row, value, SUBJECT, ["rows", index]);
        index++;
        if (row.kind === "kg-predicate") {
          this.#access.assertAdmin("importing predicate declarations");
          this.#statements.upsertPredicate.run(row.name, row.singleValued ? 1 : 0);
          result.predicates++;
        } else if (row.kind === "kg-entity") {
          // Rows from before facts had wings go where a migration would have put them.
          const wing = this.#importWing(row.wing, index - 1);
          const entity = this.#ensureEntity(wing, row.name, undefined, row.createdAt);
          if (row.type !== undefined && entity.type !== row.type) {
            this.#statements.setEntityType.run(row.type, entity.id);
          }
          for (const alias of row.aliases) this.#addAlias(entity, alias);
          result.entities++;
        } else {
          const { kind: _kind, wing: rowWing, ...fields } = row;
          const wing = this.#importWing(rowWing, index - 1);
          const triple = { ...fields, wing };
          const from = triple.validFrom === undefined ? undefined : this.#time(triple.validFrom, "validFrom");
          const to = triple.validTo === undefined ? undefined : this.#time(triple.validTo, "validTo");
          if (from !== undefined && to !== undefined && to.ms < from.ms) {
            throw new ValidationError(SUBJECT, [
              {
                path: ["rows", index - 1, "validTo"],
                message: `${to.text} is before validFrom ${from.text}`,
              },
            ]);
          }
          const stored = this.#statements.tripleById.get(triple.id) as TripleRow | undefined;
          if (stored !== undefined) {
            if (stored.wing === wing && sameTriple(tripleFromRow(stored), triple)) {
              result.skipped++;
              continue;
            }
            throw new KnowledgeGraphConflictError(
              stored.wing === wing || this.#access.canRead(stored.wing)
                ? `rows.${index - 1}: fact id ${triple.id} already holds "${renderFact(tripleFromRow(stored))}", not "${renderFact(triple)}"; import into an empty palace or drop that row`
                : `rows.${index - 1}: fact id ${triple.id} is taken; import into an empty palace or drop that row`,
            );
          }
          this.#insertTriple({
            id: triple.id,
            wing,
            subjectId: this.#ensureEntity(wing, triple.subject, undefined, triple.createdAt).id,
            predicate: triple.predicate,
            objectId: this.#ensureEntity(wing, triple.object, undefined, triple.createdAt).id,
            from,
            to,
            sourceDrawerId: triple.sourceDrawerId,
            confidence: triple.confidence,
            createdAt: triple.createdAt,
          });
          result.triples++;
        }
      }
      return result;
    });
  }

  // ---- internals --------------------------------------------------------------------------

  #parseTarget(target: unknown): string | { subject: string; predicate: string; object: string } {
    if (typeof target === "string") return parseInput(this.#schemas.tripleId, target, SUBJECT, ["target"]);
    if (typeof target === "object" && target !== null) {
      return parseInput(this.#schemas.factTarget, target, SUBJECT, ["target"]);
    }
    throw new ValidationError(SUBJECT, [
      { path: ["target"], message: "give a fact id (t_…) or { subject, predicate, object }" },
    ]);
  }

  #write<Result>(body: () => Result): Result {
    return this.#db.transaction(body).immediate();
  }

  #nowIso(): string {
    return this.#now().toISOString();
  }

  #nowTime(): FactTime {
    const text = this.#nowIso();
    return { text, ms: Date.parse(text) };
  }

  #time(text: string, field: string): FactTime {
    return { text, ms: parseFactTime(text, field) };
  }

  #cap(limit: number | undefined): number {
    return Math.min(limit ?? this.limits.maxQueryFacts, this.limits.maxQueryFacts);
  }

  #singleValued(predicate: string): boolean {
    const row = this.#statements.getPredicate.get(predicate) as { single_valued: number } | undefined;
    return row?.single_valued === 1;
  }

  /** The wing a write goes to: the one named (which must be writable), else the caller's own. */
  #writeWing(asked: string | undefined, field: string): string {
    const wing = asked ?? (this.#access.isAdmin ? DEFAULT_FACT_WING : this.#access.homeWing());
    if (wing === undefined) {
      throw new ValidationError(SUBJECT, [
        {
          path: field.split("."),
          message: `name the wing to write to; ${this.#access.who} may write more than one wing, or none`,
        },
      ]);
    }
    this.#access.assertWrite(wing, undefined, field);
    return wing;
  }

  #importWing(asked: string | undefined, index: number): string {
    const wing = asked ?? DEFAULT_FACT_WING;
    this.#access.assertWrite(wing, undefined, `rows.${index}.wing`);
    return wing;
  }

  /** The readable wings as the `@wings` parameter: a JSON array, or null for every wing. */
  #readableWings(): string | null {
    const wings = this.#access.wholeReadableWings();
    return wings === undefined ? null : JSON.stringify(wings);
  }

  #resolve(wing: string, cleanedName: string): EntityRow | undefined {
    const key = wingKey(wing, cleanedName);
    return (this.#statements.entityByKey.get(key) ?? this.#statements.entityByAlias.get(key)) as
      | EntityRow
      | undefined;
  }

  /** The entities a name resolves to in each readable wing (or only in `wing`, which must be readable). */
  #resolveReadable(cleanedName: string, wing?: string): EntityRow[] {
    if (wing !== undefined) {
      this.#access.assertRead(wing, undefined, "wing");
      const row = this.#resolve(wing, cleanedName);
      return row === undefined ? [] : [row];
    }
    const wings =
      this.#access.wholeReadableWings() ??
      (this.#statements.entityWings.all() as { wing: string }[]).map((row) => row.wing);
    return [...wings]
      .sort()
      .map((each) => this.#resolve(each, cleanedName))
      .filter((row) => row !== undefined);
  }

  #requireEntities(name: string, wing?: string): EntityRow[] {
    const cleaned = parseInput(this.#schemas.entityName("entity"), name, SUBJECT, ["entity"]);
    const rows = this.#resolveReadable(cleaned, wing);
    if (rows.length === 0) {
      throw new KnowledgeGraphNotFoundError(
        `No entity is named ${JSON.stringify(cleaned)} (nor has it as an alias); add a fact about it first, or check the spelling with query`,
      );
    }
    return rows;
  }

  #ensureEntity(wing: string, name: string, type: string | undefined, createdAt: string): EntityRow {
    const existing = this.#resolve(wing, name);
    if (existing !== undefined) {
      if (type !== undefined && existing.type === null) {
        this.#statements.setEntityType.run(type, existing.id);
        return { ...existing, type };
      }
      return existing;
    }
    const key = wingKey(wing, name);
    const info = this.#statements.insertEntity.run(key, wing, name, type ?? null, createdAt);
    return { id: Number(info.lastInsertRowid), key, wing, name, type: type ?? null, created_at: createdAt };
  }

  #addAlias(entity: EntityRow, alias: string): void {
    const key = wingKey(entity.wing, alias);
    if (key === entity.key) return;
    const owner = this.#resolve(entity.wing, alias);
    if (owner !== undefined) {
      if (owner.id === entity.id) return;
      throw new KnowledgeGraphConflictError(
        `The alias ${JSON.stringify(alias)} already names the entity ${JSON.stringify(owner.name)}; an alias can point at one entity only`,
      );
    }
    const count = (this.#statements.aliasCount.get(entity.id) as { count: number }).count;
    if (count >= this.limits.maxEntityAliases) {
      throw new LimitError(
        "maxEntityAliases",
        `${entity.name} already has ${count} aliases (the maxEntityAliases limit); ${JSON.stringify(alias)} was not added`,
      );
    }
    this.#statements.insertAlias.run(key, alias, entity.id);
  }

  #entityFromRow(row: EntityRow): Entity {
    const aliases = (this.#statements.aliasesOf.all(row.id) as Array<{ alias: string }>).map((a) => a.alias);
    const entity: Entity = { wing: row.wing, name: row.name, aliases, createdAt: row.created_at };
    if (row.type !== null) entity.type = row.type;
    return entity;
  }

  #node(row: EntityRow, depth: number): NeighbourNode {
    return row.type === null ? { name: row.name, depth } : { name: row.name, type: row.type, depth };
  }

  /** A stored fact with the same subject, predicate and object that already covers the new span. */
  #sameFact(
    subjectId: number,
    predicate: string,
    objectId: number,
    from: FactTime | undefined,
    to: FactTime | undefined,
  ): Triple | undefined {
    const candidates = this.#statements.sameFacts.all({
      subject: subjectId,
      predicate,
      object: objectId,
    }) as TripleRow[];
    const covering = candidates.find((row) => {
      // An open fact is restated by any open one: "identical open fact" is a no-op whatever its start.
      if (to === undefined) return row.valid_to_ms === null;
      const startsInTime = row.valid_from_ms === null || (from !== undefined && row.valid_from_ms <= from.ms);
      const endsInTime = row.valid_to_ms === null || row.valid_to_ms >= to.ms;
      return startsInTime && endsInTime;
    });
    return covering === undefined ? undefined : tripleFromRow(covering);
  }

  /** Facts of `subject predicate` with another object true at some instant of [fromMs, toMs). */
  #overlapping(
    subjectId: number,
    predicate: string,
    objectId: number | undefined,
    fromMs: number,
    toMs: number | undefined,
  ): TripleRow[] {
    return this.#statements.overlapping.all({
      subject: subjectId,
      predicate,
      object: objectId ?? -1,
      from: fromMs,
      to: toMs ?? Number.MAX_SAFE_INTEGER,
    }) as TripleRow[];
  }

  #insertTriple(triple: {
    id: string;
    wing: string;
    subjectId: number;
    predicate: string;
    objectId: number;
    from: FactTime | undefined;
    to: FactTime | undefined;
    sourceDrawerId: string | undefined;
    confidence: number | undefined;
    createdAt: string;
  }): Triple {
    this.#statements.insertTriple.run({
      id: triple.id,
      wing: triple.wing,
      subject: triple.subjectId,
      predicate: triple.predicate,
      object: triple.objectId,
      validFrom: triple.from?.text ?? null,
      validFromMs: triple.from?.ms ?? null,
      validTo: triple.to?.text ?? null,
      validToMs: triple.to?.ms ?? null,
      source: triple.sourceDrawerId ?? null,
      confidence: triple.confidence ?? null,
      createdAt: triple.createdAt,
    });
    return tripleFromRow(this.#statements.tripleById.get(triple.id) as TripleRow);
  }
}

const EXPORT_PAGE = 1_000;

/** What a scoped graph shares with the graph it came from. */
interface SharedGraph {
  schemas: KnowledgeGraphSchemas;
  statements: KgStatements;
  access: PalaceAccess;
}

function newTripleId(): string {
  return `t_${randomBytes(12).toString("hex")}`;
}

function refused(row: TripleRow, newObject: string): FactConflict {
  const existing = tripleFromRow(row);
  return { existing, resolution: "refused", message: refusedMessage(existing, newObject) };
}

function sameTriple(a: Triple, b: Triple): boolean {
  const fields: Array<keyof Triple> = [
    "subject",
    "predicate",
    "object",
    "validFrom",
    "validTo",
    "sourceDrawerId",
    "confidence",
    "createdAt",
  ];
  return fields.every((field) =>
    field === "subject" || field === "object"
      ? entityKey(String(a[field])) === entityKey(String(b[field]))
      : a[field] === b[field],
  );
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
