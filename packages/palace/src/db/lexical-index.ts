import type { LexicalColumn } from "./lexical-table.js";

/** A drawer's BM25 score (higher is better) by its registry rowid. */
export interface LexicalRank {
  rowid: number;
  score: number;
}

/**
 * The palace's BM25 side, written by the registry (one row per drawer, the columns of
 * `lexical-table.ts`) and read by search. SQLite keeps it in an FTS5 table
 * (`sqlite/fts5-lexical-index.ts`); PostgreSQL in term tables scored with the same BM25 as FTS5's
 * `bm25()` (`postgres/pg-lexical-index.ts`), so a palace ranks alike on both.
 */
export interface LexicalIndex {
  /** Adds drawer `rowid`'s row (it must have none). */
  insert(rowid: number, columns: Readonly<Record<LexicalColumn, string>>): void;
  /** Removes drawer `rowid`'s row, if any. */
  remove(rowid: number): void;
  /** Removes every row (a rebuild follows). */
  clear(): void;
  /** Brings the index's totals up to date with the writes so far; call before the transaction commits. */
  settle(): void;
  /**
   * The `n` best drawers for `terms` (query words; any may match) by weighted BM25, confined by
   * `filter` (SQL on `drawers d`, with its parameters) when given; ties by rowid.
   */
  rank(
    terms: readonly string[],
    filter: { sql: string; params: readonly (string | number)[] } | undefined,
    n: number,
  ): LexicalRank[];
  /** How many rows `term` (a query word) matches, counted up to `cap`. */
  matchCount(term: string, cap: number): number;
}
