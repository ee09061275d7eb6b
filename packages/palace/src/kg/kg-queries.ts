import type { KgContext } from "./kg-context.js";
import { type EntityRow, requireEntities, resolveReadable } from "./kg-entities.js";
import { renderFact } from "./kg-fact-lines.js";
import { inWingsSql, TRIPLE_SELECT, TRUE_AT_SQL, type TripleRow, tripleFromRow } from "./kg-rows.js";
import type {
  KnowledgeGraphQuery,
  KnowledgeGraphStats,
  Neighbourhood,
  NeighbourNode,
  NeighboursOptions,
  Triple,
} from "./kg-types.js";

// Reading the graph: facts matching a query, an entity's timeline, a walk, counts, wake-up lines.

/**
 * Facts matching every given field (names resolve through aliases; an unknown name matches
 * nothing), ordered by `validFrom` (unknown first) then insertion. With `asOf`, only facts
 * true at that time.
 */
export function queryFacts(ctx: KgContext, query: KnowledgeGraphQuery = {}): Triple[] {
  const q = ctx.parse(ctx.schemas.query, query, ["query"]);
  if (q.wing !== undefined) ctx.access.assertRead(q.wing, undefined, "query.wing");
  const conditions: string[] = [inWingsSql("t", ctx.db.dialect)];
  const params: Record<string, string | number | null> = {
    wings: q.wing === undefined ? ctx.readableWings() : JSON.stringify([q.wing]),
  };
  for (const role of ["subject", "object"] as const) {
    const name = q[role];
    if (name === undefined) continue;
    const rows = resolveReadable(ctx, name, q.wing);
    if (rows.length === 0) return [];
    conditions.push(`t.${role}_id IN (${ctx.db.dialect.jsonIntegers(`@${role}`)})`);
    params[role] = JSON.stringify(rows.map((row) => row.id));
  }
  if (q.predicate !== undefined) {
    conditions.push("t.predicate = @predicate");
    params.predicate = q.predicate;
  }
  if (q.asOf !== undefined) {
    conditions.push(TRUE_AT_SQL);
    params.at = ctx.time(q.asOf, "query.asOf").ms;
  }
  params.limit = ctx.cap(q.limit);
  const where = `WHERE ${conditions.join(" AND ")}`;
  const rows = ctx.db
    .prepare(`${TRIPLE_SELECT} ${where} ORDER BY t.valid_from_ms NULLS FIRST, t.seq LIMIT @limit`)
    .all(params) as TripleRow[];
  return rows.map(tripleFromRow);
}

/** Every fact the entity is subject or object of, past and present, by `validFrom` (unknown first). */
export function timeline(
  ctx: KgContext,
  entity: string,
  options: { limit?: number; wing?: string } = {},
): Triple[] {
  const { limit: asked, wing } = ctx.parse(ctx.schemas.timelineOptions, options, ["options"]);
  const entities = requireEntities(ctx, entity, wing);
  const limit = ctx.cap(asked);
  const rows = ctx.statements.timeline.all({
    entities: JSON.stringify(entities.map((row) => row.id)),
    wings: ctx.readableWings(),
    limit,
  }) as TripleRow[];
  return rows.map(tripleFromRow);
}

/**
 * The entities within `depth` hops of `entity` (facts followed in both directions) and the
 * facts between them. Stops widening at the `maxTraversalNodes` limit and says so.
 */
export function neighbours(
  ctx: KgContext,
  entity: string,
  depth = 1,
  options: NeighboursOptions = {},
): Neighbourhood {
  const maxDepth = ctx.parse(ctx.schemas.depth, depth, ["depth"]);
  const { asOf, wing } = ctx.parse(ctx.schemas.neighboursOptions, options, ["options"]);
  const start = requireEntities(ctx, entity, wing)[0] as EntityRow;
  const at = asOf === undefined ? undefined : ctx.time(asOf, "options.asOf").ms;
  const ids = ctx.db.dialect.jsonIntegers("@ids");
  const edgesSql = `${TRIPLE_SELECT}
    WHERE (t.subject_id IN (${ids}) OR t.object_id IN (${ids}))
    ${at === undefined ? "" : `AND ${TRUE_AT_SQL}`}
    ORDER BY t.seq`;
  const edgesOf = ctx.db.prepare(edgesSql);
  const visited = new Map<number, NeighbourNode>([[start.id, node(start, 0)]]);
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
        if (visited.size >= ctx.limits.maxTraversalNodes) {
          truncated = true;
          continue;
        }
        const entityRow = ctx.statements.entityById.get(id) as EntityRow;
        visited.set(id, node({ ...entityRow, name }, hop));
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
export function graphStats(ctx: KgContext): KnowledgeGraphStats {
  const wings = ctx.readableWings();
  const counts = ctx.statements.counts.get({ wings }) as {
    entities: number;
    aliases: number;
    triples: number;
    open: number;
    predicates: number;
  };
  const single = ctx.statements.singleValued.all() as Array<{ name: string }>;
  const top = ctx.statements.topPredicates.all({ wings }) as Array<{ predicate: string; count: number }>;
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

/** `factsFor`, each line with the wing its fact belongs to (the wake-up labels facts with it). */
export function factEntries(
  ctx: KgContext,
  entity: string | undefined,
  limit: number,
): { wing: string; text: string }[] {
  const max = Math.min(ctx.parse(ctx.schemas.limit, limit, ["limit"]), ctx.limits.maxFactLines);
  const at = ctx.nowTime().ms;
  const wings = ctx.readableWings();
  let rows: TripleRow[];
  if (entity === undefined) {
    rows = ctx.statements.topFacts.all({ at, limit: max, wings }) as TripleRow[];
  } else {
    const name = ctx.parse(ctx.schemas.entityName("entity"), entity, ["entity"]);
    const found = resolveReadable(ctx, name);
    if (found.length === 0) return [];
    const entities = JSON.stringify(found.map((row) => row.id));
    rows = ctx.statements.entityFacts.all({ entities, at, limit: max, wings }) as TripleRow[];
  }
  return rows.map((row) => ({ wing: row.wing, text: renderFact(tripleFromRow(row)) }));
}

function node(row: EntityRow, depth: number): NeighbourNode {
  return row.type === null ? { name: row.name, depth } : { name: row.name, type: row.type, depth };
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
