import type { LexicalIndex, LexicalRank } from "../lexical-index.js";
import { LEXICAL_COLUMN_WEIGHTS, LEXICAL_COLUMNS, type LexicalColumn } from "../lexical-table.js";
import type { SqlDatabase, SqlStatement } from "../sql/sql-database.js";
import { Fts5Tokenizer } from "./fts5-tokenizer.js";

/** FTS5's bm25() constants (fts5_aux.c). */
const K1 = 1.2;
const B = 0.75;

/**
 * The PostgreSQL palace's BM25 side: `lexical_terms` (term, drawer, weighted count, the drawer's length),
 * `lexical_docs` (each drawer's length in tokens) and `lexical_stats` (drawers and tokens in all,
 * brought up to date by `settle` before a write commits),
 * scored in SQL with the formula of SQLite FTS5's `bm25()`, column weights and all:
 *
 *   score = Σ_terms idf · f·(k1+1) / (f + k1·(1 − b + b·D/avgdl)),
 *   idf = ln((N − n + 0.5)/(n + 0.5)) (1e-6 when ≤ 0), f = Σ_columns weight·count,
 *
 * over terms stemmed by FTS5 itself (`Fts5Tokenizer`). So a palace ranks the same on either store.
 * PostgreSQL's own full-text ranking (`ts_rank`) is not BM25 and ranked LoCoMo worse.
 */
export class PgLexicalIndex implements LexicalIndex {
  readonly #db: SqlDatabase;
  readonly #tokenizer = new Fts5Tokenizer();
  readonly #insert: SqlStatement<[Record<string, unknown>]>;
  readonly #remove: SqlStatement<[{ rowid: number }]>;
  readonly #count: SqlStatement<[string, number], { n: number }>;
  readonly #settle: SqlStatement<[]>;

  constructor(db: SqlDatabase) {
    this.#db = db;
    this.#insert = db.prepare(`
      WITH doc AS (
        INSERT INTO lexical_docs (drawer_rowid, token_count) VALUES (CAST(@rowid AS bigint), CAST(@tokens AS integer))
      ), terms AS (
        INSERT INTO lexical_terms (term, drawer_rowid, weight, tokens)
        SELECT t.term, CAST(@rowid AS bigint), t.weight, CAST(@tokens AS integer)
        FROM unnest(CAST(@terms AS text[]), CAST(@weights AS float8[])) AS t(term, weight)
      )
      INSERT INTO lexical_stats_delta VALUES (1, CAST(@tokens AS integer))`);
    this.#remove = db.prepare(`
      WITH gone AS (
        DELETE FROM lexical_docs WHERE drawer_rowid = CAST(@rowid AS bigint) RETURNING token_count
      ), terms AS (
        DELETE FROM lexical_terms WHERE drawer_rowid = CAST(@rowid AS bigint)
      )
      INSERT INTO lexical_stats_delta SELECT -1, -token_count FROM gone`);
    this.#settle = db.prepare(`
      WITH folded AS (DELETE FROM lexical_stats_delta RETURNING drawer_count, token_count)
      UPDATE lexical_stats SET drawer_count = drawer_count + COALESCE((SELECT SUM(drawer_count) FROM folded), 0),
        token_count = token_count + COALESCE((SELECT SUM(token_count) FROM folded), 0)`);
    this.#count = db.prepare(
      "SELECT COUNT(*) AS n FROM (SELECT 1 FROM lexical_terms WHERE term = ? LIMIT ?) x",
    );
  }

  insert(rowid: number, columns: Readonly<Record<LexicalColumn, string>>): void {
    const { terms, counts, tokens } = this.#tokenizer.row(columns);
    // FTS5's bm25() adds a column's weight for each occurrence of the term in it.
    const weights = terms.map((_, at) =>
      LEXICAL_COLUMNS.reduce(
        (sum, column, c) => sum + ((counts[c] as number[])[at] as number) * LEXICAL_COLUMN_WEIGHTS[column],
        0,
      ),
    );
    this.#insert.run({ rowid, tokens, terms, weights });
  }

  remove(rowid: number): void {
    this.#remove.run({ rowid });
  }

  clear(): void {
    this.#db.exec(
      "DELETE FROM lexical_terms; DELETE FROM lexical_docs; DELETE FROM lexical_stats_delta; UPDATE lexical_stats SET drawer_count = 0, token_count = 0",
    );
  }

  settle(): void {
    this.#settle.run();
  }

  rank(
    words: readonly string[],
    filter: { sql: string; params: readonly (string | number)[] } | undefined,
    n: number,
  ): LexicalRank[] {
    // Each word is one FTS5 phrase; two words stemming alike are two phrases there too.
    const terms = words.flatMap((word) => this.#tokenizer.terms(word));
    if (terms.length === 0) return [];
    const sql = `
      WITH stats AS MATERIALIZED (
        SELECT CAST(drawer_count AS float8) AS n, CAST(token_count AS float8) / NULLIF(drawer_count, 0) AS avgdl
        FROM lexical_stats WHERE only_row = 1
      ), idf AS (
        SELECT q.term, CASE WHEN h.x <= 0 THEN 1e-6 ELSE h.x END AS idf
        FROM unnest(CAST(? AS text[])) AS q(term)
        CROSS JOIN stats s
        CROSS JOIN LATERAL (
          SELECT ln((s.n - COUNT(*) + 0.5) / (COUNT(*) + 0.5)) AS x FROM lexical_terms h WHERE h.term = q.term
        ) h
      )
      SELECT p.drawer_rowid AS rowid,
        SUM(i.idf * (p.weight * ${K1 + 1}) / (p.weight + ${K1} * (${1 - B} + ${B} * p.tokens / s.avgdl))) AS score
      FROM idf i
      JOIN lexical_terms p ON p.term = i.term
      CROSS JOIN stats s
      ${filter ? `JOIN drawers d ON d.rowid = p.drawer_rowid WHERE ${filter.sql}` : ""}
      GROUP BY p.drawer_rowid
      ORDER BY score DESC, p.drawer_rowid
      LIMIT ?`;
    return this.#db.prepare(sql).all(terms, ...(filter?.params ?? []), n) as LexicalRank[];
  }

  matchCount(word: string, cap: number): number {
    const terms = this.#tokenizer.terms(word);
    // A word FTS5 splits in several terms is a phrase there; the rarest of them bounds its rows.
    const counts = terms.map((term) => (this.#count.get(term, cap) as { n: number }).n);
    return counts.length === 0 ? 0 : Math.min(...counts);
  }
}
