import type { LexicalIndex } from "../db/lexical-index.js";
import type { SqlDatabase } from "../db/sql/sql-database.js";

/**
 * FTS5 computes bm25() for every row a MATCH finds before it can sort them, so a query's cost
 * grows with the rows its terms match, not with k. At 100k drawers a query word like "take" or a
 * frequent name matches a quarter of the palace (more through the neighbour columns), and a
 * three-word query took 90–200 ms. So the terms are taken rarest first while the rows they match
 * (the sum of their document frequencies) stay within a budget; the rarest term is always kept.
 * The terms left out are the most common ones, whose bm25 weight (IDF) is the lowest; a palace
 * small enough that every term fits (a few thousand drawers) searches exactly as before.
 */
export function withinMatchBudget(
  index: LexicalIndex,
  db: SqlDatabase,
  terms: readonly string[],
  budget: number,
): string[] {
  if (terms.length <= 1) return [...terms];
  const frequencies = documentFrequencies(index, db, terms, budget);
  const byRarity = terms
    .map((term, at) => ({ term, at, rows: frequencies[at] as number }))
    .sort((a, b) => a.rows - b.rows || a.at - b.at);
  const kept = new Set<number>();
  let rows = 0;
  for (const entry of byRarity) {
    if (kept.size > 0 && rows + entry.rows > budget) break;
    kept.add(entry.at);
    rows += entry.rows;
  }
  return terms.filter((_, at) => kept.has(at));
}

interface FrequencyCache {
  /** The palace state the counts belong to: its last write-log seq and drawer count. */
  version: string;
  rows: Map<string, number>;
}

/** Counts per database connection, dropped whenever a write (from any process) is seen. */
const caches = new WeakMap<SqlDatabase, FrequencyCache>();
/** Distinct terms remembered per palace state (a bound on memory, not on correctness). */
const CACHE_TERMS = 10_000;

/**
 * Rows of the FTS table each term matches, counted only up to `budget + 1`: past the budget the
 * exact count changes nothing but which of several such terms is kept alone when nothing rarer
 * exists (then the first in the query). Counted by the index itself, so the terms are stemmed
 * exactly as it stems them.
 */
function documentFrequencies(
  index: LexicalIndex,
  db: SqlDatabase,
  terms: readonly string[],
  budget: number,
): number[] {
  const state = db
    .prepare(
      "SELECT (SELECT COALESCE(MAX(seq), 0) FROM write_log) AS seq, (SELECT COUNT(*) FROM drawers) AS n",
    )
    .get() as { seq: number; n: number };
  const version = `${state.seq}:${state.n}:${budget}`;
  let cache = caches.get(db);
  if (cache?.version !== version || cache.rows.size > CACHE_TERMS) {
    cache = { version, rows: new Map() };
    caches.set(db, cache);
  }
  return terms.map((term) => {
    let rows = cache.rows.get(term);
    if (rows === undefined) {
      rows = index.matchCount(term, budget + 1);
      cache.rows.set(term, rows);
    }
    return rows;
  });
}
