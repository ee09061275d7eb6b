import type { Where } from "@atrium/chroma";
import { reciprocalRankFusion } from "@atrium/kit";
import { checkTimeRange, type Embedding, type TimeRange, ValidationError } from "@atrium/spec";
import type { PalaceAccess } from "../access/palace-access.js";
import type { DrawerRegistry } from "../db/drawer-registry.js";
import { DRAWER_COLUMNS, type DrawerRow, rowToDrawer } from "../db/drawer-row.js";
import type { SqlDatabase } from "../db/sql/sql-database.js";
import type { Drawer } from "../drawers/drawer.js";
import { invalidInput } from "../errors.js";
import type { PalaceLimits } from "../limits.js";
import {
  BM25_MATCH_BUDGET,
  MAX_LOCAL_VECTOR_SCOPE,
  MAX_VECTOR_ID_FILTER,
  MAX_VECTOR_POSTFILTER,
  SEARCH_CANDIDATE_FACTOR,
  SEARCH_DEFAULT_K,
  SEARCH_MIN_CANDIDATES,
  VECTOR_OVERSAMPLE,
} from "../tuning.js";
import { nearestInScope } from "../vectors/local-vectors.js";
import type { VectorIndex } from "../vectors/vector-index.js";
import { HYBRID_FUSION, lexicalQueryTerms } from "./lexical-query.js";
import { withinMatchBudget } from "./match-budget.js";

export type SearchMode = "hybrid" | "bm25" | "vector";

/** Which drawers a search (or a listing) may return. */
export interface DrawerFilter {
  wing?: string;
  room?: string;
  hall?: string;
  /** ISO 8601 bounds on the drawer's timestamp, both inclusive. */
  timeRange?: TimeRange;
  /** Only drawers these grants may read (a `PalaceView` sets it); default: every drawer. */
  access?: PalaceAccess;
}

export interface SearchOptions extends DrawerFilter {
  /** Hits to return (default 10, at most `maxSearchHits`). */
  k?: number;
  /** "hybrid" (default) fuses BM25 and vector ranks; "bm25" and "vector" run one leg alone (baselines). */
  mode?: SearchMode;
  /** Add the drawers just before and after each hit in its source: true = 1 each side, or a count. */
  expandNeighbours?: boolean | number;
}

export interface SearchHit extends Drawer {
  /** Higher is better, comparable within one result list: the fused RRF score, -bm25(), or cosine similarity. */
  score: number;
  /** 0-based rank of the drawer in each leg that found it. */
  ranks: { bm25?: number; vector?: number };
  /** With `expandNeighbours`: the drawers around the hit in its source, in position order. */
  neighbours?: { before: Drawer[]; after: Drawer[] };
}

export interface SearchContext {
  db: SqlDatabase;
  registry: DrawerRegistry;
  index: VectorIndex;
  embedding: Embedding;
  limits: PalaceLimits;
  /** Overrides of the filtered-vector thresholds (tests reach every path on a small palace). */
  vectorFilter?: { maxIdFilter: number; maxPostfilter: number; maxLocalScope?: number };
}

interface Ranked {
  rowid?: number;
  id?: string;
  score: number;
}

/** A checked filter: the time range in milliseconds, open bounds as undefined. */
export interface CheckedFilter {
  wing?: string;
  room?: string;
  hall?: string;
  fromMs?: number;
  toMs?: number;
  access?: PalaceAccess;
}

export function checkFilter(filter: DrawerFilter): CheckedFilter {
  const checked: CheckedFilter = {};
  for (const key of ["wing", "room", "hall"] as const) {
    const value = filter[key];
    if (value === undefined) continue;
    if (typeof value !== "string" || value === "") throw invalidInput(key, "must be non-empty text");
    checked[key] = value;
  }
  if (filter.timeRange !== undefined) {
    let range: { from: number; to: number };
    try {
      range = checkTimeRange(filter.timeRange);
    } catch (error) {
      if (error instanceof ValidationError)
        throw invalidInput("timeRange", error.message.replace(/^memory: /, ""));
      throw error;
    }
    if (Number.isFinite(range.from)) checked.fromMs = range.from;
    if (Number.isFinite(range.to)) checked.toMs = range.to;
  }
  if (filter.access !== undefined && !filter.access.isAdmin) checked.access = filter.access;
  return checked;
}

/** SQL conditions on `drawers d` for a filter, with their parameters. */
export function filterSql(filter: CheckedFilter): { sql: string; params: (string | number)[] } {
  const conditions: string[] = [];
  const params: (string | number)[] = [];
  const add = (condition: string, value: string | number | undefined) => {
    if (value === undefined) return;
    conditions.push(condition);
    params.push(value);
  };
  add("d.wing = ?", filter.wing);
  add("d.room = ?", filter.room);
  add("d.hall = ?", filter.hall);
  add("d.timestamp_ms >= ?", filter.fromMs);
  add("d.timestamp_ms <= ?", filter.toMs);
  const confined = filter.access?.readSql("d");
  if (confined) {
    conditions.push(confined.sql);
    params.push(...confined.params);
  }
  return { sql: conditions.join(" AND "), params };
}

/** The filter as Chroma metadata conditions (undefined: none). */
export function filterWhere(filter: CheckedFilter): Where | undefined {
  const conditions: Where[] = [];
  if (filter.wing !== undefined) conditions.push({ wing: { $eq: filter.wing } });
  if (filter.room !== undefined) conditions.push({ room: { $eq: filter.room } });
  if (filter.hall !== undefined) conditions.push({ hall: { $eq: filter.hall } });
  if (filter.fromMs !== undefined) conditions.push({ timestamp_ms: { $gte: filter.fromMs } });
  if (filter.toMs !== undefined) conditions.push({ timestamp_ms: { $lte: filter.toMs } });
  if (filter.access !== undefined) conditions.push(accessWhere(filter.access));
  if (conditions.length === 0) return undefined;
  return conditions.length === 1 ? conditions[0] : { $and: conditions };
}

/** What the grants read, as Chroma metadata conditions (a search that reaches Chroma's filter). */
function accessWhere(access: PalaceAccess): Where {
  const scopes: Where[] = access
    .readScopes()
    .map(
      ({ wing, rooms }): Where =>
        rooms === undefined
          ? { wing: { $eq: wing } }
          : { $and: [{ wing: { $eq: wing } }, { room: { $in: rooms } }] },
    );
  if (scopes.length === 0) return { wing: { $in: [] } };
  return scopes.length === 1 ? (scopes[0] as Where) : { $or: scopes };
}

/** The registry is the truth: a vector whose drawer changed or went (not yet synced) must still obey the filter. */
function matches(row: DrawerRow, filter: CheckedFilter): boolean {
  return (
    (filter.wing === undefined || row.wing === filter.wing) &&
    (filter.room === undefined || row.room === filter.room) &&
    (filter.hall === undefined || row.hall === filter.hall) &&
    (filter.fromMs === undefined || row.timestamp_ms >= filter.fromMs) &&
    (filter.toMs === undefined || row.timestamp_ms <= filter.toMs) &&
    (filter.access === undefined || filter.access.canRead(row.wing, row.room))
  );
}

/**
 * Hybrid search: BM25 over the FTS5 index and cosine similarity over the vectors, each leg
 * filtered the same way, fused by reciprocal rank. Returns drawers verbatim from the registry.
 */
export async function hybridSearch(
  context: SearchContext,
  query: string,
  options: SearchOptions = {},
): Promise<{ hits: SearchHit[]; rowids: number[] }> {
  const { limits } = context;
  if (typeof query !== "string" || query.trim() === "") throw invalidInput("query", "must be non-empty text");
  if (query.length > limits.maxQueryChars) {
    throw invalidInput(
      "query",
      `has ${query.length} characters, more than maxQueryChars (${limits.maxQueryChars})`,
    );
  }
  const k = options.k ?? SEARCH_DEFAULT_K;
  if (!Number.isInteger(k) || k < 1 || k > limits.maxSearchHits) {
    throw invalidInput("k", `must be an integer from 1 to ${limits.maxSearchHits}, got ${String(k)}`);
  }
  const mode = options.mode ?? "hybrid";
  if (mode !== "hybrid" && mode !== "bm25" && mode !== "vector") {
    throw invalidInput("mode", `must be "hybrid", "bm25" or "vector", got ${JSON.stringify(mode)}`);
  }
  const neighbourCount = neighboursWanted(options.expandNeighbours, limits);
  const filter = checkFilter(options);
  const candidates = mode === "hybrid" ? Math.max(SEARCH_MIN_CANDIDATES, k * SEARCH_CANDIDATE_FACTOR) : k;

  const vectorLeg = mode === "bm25" ? Promise.resolve([]) : vectorRanks(context, query, filter, candidates);
  const lexical = mode === "vector" ? [] : bm25Ranks(context, query, filter, candidates);
  const vector = await vectorLeg;

  const rowsById = new Map<string, DrawerRow>();
  for (const row of context.registry.byRowids(lexical.map((hit) => hit.rowid as number)))
    rowsById.set(row.id, row);
  const idOfRowid = new Map([...rowsById.values()].map((row) => [row.rowid, row.id]));
  for (const row of context.registry.byIds(
    vector.map((hit) => hit.id as string).filter((id) => !rowsById.has(id)),
  ))
    rowsById.set(row.id, row);

  const lexicalIds = lexical
    .map((hit) => idOfRowid.get(hit.rowid as number))
    .filter((id) => id !== undefined);
  const vectorIds = vector
    .map((hit) => hit.id as string)
    .filter((id) => {
      const row = rowsById.get(id);
      return row !== undefined && matches(row, filter);
    });

  let ranked: { id: string; score: number; ranks: SearchHit["ranks"] }[];
  if (mode === "hybrid") {
    ranked = reciprocalRankFusion([lexicalIds, vectorIds], {
      key: (id) => id,
      k: HYBRID_FUSION.k,
      weights: [HYBRID_FUSION.bm25, HYBRID_FUSION.vector],
    }).map((entry) => ({
      id: entry.key,
      score: entry.score,
      ranks: Object.fromEntries(entry.occurrences.map((o) => [o.list === 0 ? "bm25" : "vector", o.rank])),
    }));
  } else if (mode === "bm25") {
    const scoreOf = new Map(lexical.map((hit) => [idOfRowid.get(hit.rowid as number), hit.score]));
    ranked = lexicalIds.map((id, rank) => ({ id, score: scoreOf.get(id) ?? 0, ranks: { bm25: rank } }));
  } else {
    const scoreOf = new Map(vector.map((hit) => [hit.id, hit.score]));
    ranked = vectorIds.map((id, rank) => ({ id, score: scoreOf.get(id) ?? 0, ranks: { vector: rank } }));
  }

  const hits: SearchHit[] = ranked.slice(0, k).map((entry) => ({
    ...rowToDrawer(rowsById.get(entry.id) as DrawerRow),
    score: entry.score,
    ranks: entry.ranks,
  }));
  if (neighbourCount > 0) addNeighbours(context.db, hits, neighbourCount, filter.access);
  return { hits, rowids: hits.map((hit) => (rowsById.get(hit.id) as DrawerRow).rowid) };
}

function neighboursWanted(option: boolean | number | undefined, limits: PalaceLimits): number {
  if (option === undefined || option === false) return 0;
  if (option === true) return 1;
  if (!Number.isInteger(option) || option < 0 || option > limits.maxNeighbours) {
    throw invalidInput(
      "expandNeighbours",
      `must be true, false or an integer from 0 to ${limits.maxNeighbours}`,
    );
  }
  return option;
}

function bm25Ranks(context: SearchContext, query: string, filter: CheckedFilter, n: number): Ranked[] {
  const lexical = context.registry.lexical;
  const terms = withinMatchBudget(lexical, context.db, lexicalQueryTerms(query), BM25_MATCH_BUDGET);
  const { sql, params } = filterSql(filter);
  return lexical.rank(terms, sql ? { sql, params } : undefined, n);
}

async function vectorRanks(
  context: SearchContext,
  query: string,
  filter: CheckedFilter,
  n: number,
): Promise<Ranked[]> {
  const [vector] = await context.embedding.embed([query]);
  if (!vector) return [];
  const ranked = (matches: { id: string; distance: number }[]) =>
    matches.map((match) => ({ id: match.id, score: 1 - match.distance }));
  const { sql, params } = filterSql(filter);
  if (!sql) return ranked(await context.index.query(vector, n));
  const local = nearestInScope(
    context.db,
    vector,
    { sql, params },
    n,
    context.vectorFilter?.maxLocalScope ?? MAX_LOCAL_VECTOR_SCOPE,
  );
  if (local) return ranked(local);
  const maxIdFilter = context.vectorFilter?.maxIdFilter ?? MAX_VECTOR_ID_FILTER;
  const maxPostfilter = context.vectorFilter?.maxPostfilter ?? MAX_VECTOR_POSTFILTER;
  // A scope too wide to score here, or with vectors not yet stored (a palace from schema v1):
  // see MAX_VECTOR_ID_FILTER. Over-fetching is cheapest, Chroma's metadata filter the slow last resort.
  const count = (where: string, values: (string | number)[]) =>
    (context.db.prepare(`SELECT COUNT(*) AS n FROM drawers d${where}`).get(...values) as { n: number }).n;
  const matching = count(` WHERE ${sql}`, params);
  if (matching === 0) return [];
  const total = count("", []);
  const wanted = Math.ceil((n * VECTOR_OVERSAMPLE * total) / matching);
  if (wanted <= maxPostfilter) {
    const nearest = await context.index.query(vector, Math.min(wanted, total));
    // SQLite checks the filter and returns ids only: building a whole row (content and all) per
    // neighbour cost more node CPU than the rest of the search (10k drawers, one wing: 2,500 rows).
    const passing = new Set(
      (
        context.db
          .prepare(
            `SELECT d.id FROM drawers d WHERE d.id IN (${context.db.dialect.jsonTexts("?")}) AND ${sql}`,
          )
          .all(JSON.stringify(nearest.map((match) => match.id)), ...params) as { id: string }[]
      ).map((row) => row.id),
    );
    const kept = nearest.filter((match) => passing.has(match.id));
    if (kept.length >= n || wanted >= total) return ranked(kept.slice(0, n));
  }
  if (matching <= maxIdFilter) {
    const allowed = (
      context.db.prepare(`SELECT d.id FROM drawers d WHERE ${sql}`).all(...params) as { id: string }[]
    ).map((row) => row.id);
    return ranked(await context.index.query(vector, Math.min(n, allowed.length), { ids: allowed }));
  }
  return ranked(await context.index.query(vector, n, { where: filterWhere(filter) }));
}

/**
 * The drawers around each hit in its source. Only in the hit's own wing (another wing may hold a
 * source of the same name) and only what the grants read.
 */
function addNeighbours(
  db: SqlDatabase,
  hits: SearchHit[],
  count: number,
  access: PalaceAccess | undefined,
): void {
  const confined = access?.readSql("d");
  const extra = confined ? ` AND ${confined.sql}` : "";
  const extraParams = confined?.params ?? [];
  const before = db.prepare(
    `SELECT ${DRAWER_COLUMNS} FROM drawers d WHERE d.source = ? AND d.wing = ? AND d.position < ?${extra} ORDER BY d.position DESC LIMIT ?`,
  );
  const after = db.prepare(
    `SELECT ${DRAWER_COLUMNS} FROM drawers d WHERE d.source = ? AND d.wing = ? AND d.position > ?${extra} ORDER BY d.position LIMIT ?`,
  );
  for (const hit of hits) {
    if (hit.source === undefined || hit.position === undefined) {
      hit.neighbours = { before: [], after: [] };
      continue;
    }
    const earlier = before.all(hit.source, hit.wing, hit.position, ...extraParams, count) as DrawerRow[];
    const later = after.all(hit.source, hit.wing, hit.position, ...extraParams, count) as DrawerRow[];
    hit.neighbours = { before: earlier.reverse().map(rowToDrawer), after: later.map(rowToDrawer) };
  }
}
