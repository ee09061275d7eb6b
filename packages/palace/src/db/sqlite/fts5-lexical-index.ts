import type { LexicalIndex, LexicalRank } from "../lexical-index.js";
import {
  LEXICAL_COLUMN_WEIGHTS,
  LEXICAL_COLUMNS,
  LEXICAL_TABLE,
  type LexicalColumn,
} from "../lexical-table.js";
import type { SqlDatabase, SqlStatement } from "../sql/sql-database.js";

/** The embedded palace's BM25 side: SQLite's FTS5 table `drawers_fts` (see `lexical-table.ts`). */
export class Fts5LexicalIndex implements LexicalIndex {
  readonly #db: SqlDatabase;
  readonly #insert: SqlStatement;
  readonly #remove: SqlStatement<[number]>;
  readonly #count: SqlStatement<[string, number], { n: number }>;

  constructor(db: SqlDatabase) {
    this.#db = db;
    const placeholders = LEXICAL_COLUMNS.map(() => "?").join(", ");
    this.#insert = db.prepare(
      `INSERT INTO ${LEXICAL_TABLE} (rowid, ${LEXICAL_COLUMNS.join(", ")}) VALUES (?, ${placeholders})`,
    );
    this.#remove = db.prepare(`DELETE FROM ${LEXICAL_TABLE} WHERE rowid = ?`);
    this.#count = db.prepare(
      `SELECT COUNT(*) AS n FROM (SELECT 1 FROM ${LEXICAL_TABLE} WHERE ${LEXICAL_TABLE} MATCH ? LIMIT ?)`,
    );
  }

  insert(rowid: number, columns: Readonly<Record<LexicalColumn, string>>): void {
    this.#insert.run(rowid, ...LEXICAL_COLUMNS.map((column) => columns[column]));
  }

  remove(rowid: number): void {
    this.#remove.run(rowid);
  }

  clear(): void {
    this.#db.exec(`DELETE FROM ${LEXICAL_TABLE}`);
  }

  settle(): void {
    // FTS5 keeps its totals itself.
  }

  rank(
    terms: readonly string[],
    filter: { sql: string; params: readonly (string | number)[] } | undefined,
    n: number,
  ): LexicalRank[] {
    const match = lexicalMatchExpression(terms);
    if (match === undefined) return [];
    const weights = LEXICAL_COLUMNS.map((column) => LEXICAL_COLUMN_WEIGHTS[column]).join(", ");
    // CROSS JOIN keeps the FTS5 match as the outer loop: left to itself, the planner may walk the
    // wing's index and run the MATCH once per drawer, many times slower on a large palace.
    const statement = filter
      ? `SELECT f.rowid AS rowid, bm25(${LEXICAL_TABLE}, ${weights}) AS score FROM ${LEXICAL_TABLE} f CROSS JOIN drawers d ON d.rowid = f.rowid WHERE ${LEXICAL_TABLE} MATCH ? AND ${filter.sql} ORDER BY score, f.rowid LIMIT ?`
      : `SELECT rowid, bm25(${LEXICAL_TABLE}, ${weights}) AS score FROM ${LEXICAL_TABLE} WHERE ${LEXICAL_TABLE} MATCH ? ORDER BY score, rowid LIMIT ?`;
    const rows = this.#db.prepare(statement).all(match, ...(filter?.params ?? []), n) as LexicalRank[];
    // bm25() is lower-is-better; flipped so every mode's score is higher-is-better.
    return rows.map((row) => ({ rowid: row.rowid, score: -row.score }));
  }

  matchCount(term: string, cap: number): number {
    // Counted by FTS5 itself, so the term is stemmed exactly as the index is.
    return (this.#count.get(`"${term}"`, cap) as { n: number }).n;
  }
}

/** Query words (`search/lexical-query.ts`) as an FTS5 MATCH expression (quoted, OR-ed); undefined for none. */
export function lexicalMatchExpression(terms: readonly string[]): string | undefined {
  if (terms.length === 0) return undefined;
  return terms.map((word) => `"${word}"`).join(" OR ");
}
