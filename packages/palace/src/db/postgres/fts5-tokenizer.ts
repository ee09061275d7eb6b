import BetterSqlite3, { type Database, type Statement } from "better-sqlite3";
import { LEXICAL_COLUMNS, type LexicalColumn, lexicalTableSql } from "../lexical-table.js";

/** One drawer's lexical row as terms: each term's count in each column, in `LEXICAL_COLUMNS` order. */
export interface TermCounts {
  terms: string[];
  /** `counts[c][i]`: how often `terms[i]` occurs in column `LEXICAL_COLUMNS[c]`. */
  counts: number[][];
  /** Every token of the row, all columns (BM25's document length). */
  tokens: number;
}

/**
 * Splits text into index terms exactly as the embedded palace's FTS5 table does (same
 * `lexicalTableSql`: porter stemming over unicode61, diacritics removed), by asking an in-memory
 * FTS5 table of that definition, so a PostgreSQL palace stems every word the way a SQLite one
 * does and the two rank alike. One per store; about 30 µs a row.
 */
export class Fts5Tokenizer {
  readonly #db: Database;
  readonly #insert: Statement;
  readonly #instances: Statement<[], { term: string; col: string; n: number }>;
  readonly #terms: Statement<[], { term: string }>;
  readonly #clear: Statement;

  constructor() {
    this.#db = new BetterSqlite3(":memory:");
    this.#db.exec(
      `${lexicalTableSql("row")}; CREATE VIRTUAL TABLE row_terms USING fts5vocab(row, 'instance');`,
    );
    const placeholders = LEXICAL_COLUMNS.map(() => "?").join(", ");
    this.#insert = this.#db.prepare(
      `INSERT INTO row (rowid, ${LEXICAL_COLUMNS.join(", ")}) VALUES (1, ${placeholders})`,
    );
    this.#instances = this.#db.prepare(
      "SELECT term, col, COUNT(*) AS n FROM row_terms GROUP BY term, col ORDER BY term, col",
    );
    this.#terms = this.#db.prepare('SELECT term FROM row_terms ORDER BY "offset"');
    this.#clear = this.#db.prepare("DELETE FROM row");
  }

  /** The terms of one lexical row, with their counts per column. */
  row(columns: Readonly<Record<LexicalColumn, string>>): TermCounts {
    this.#insert.run(...LEXICAL_COLUMNS.map((column) => columns[column]));
    try {
      const index = new Map<string, number>();
      const counts: number[][] = LEXICAL_COLUMNS.map(() => []);
      let tokens = 0;
      for (const { term, col, n } of this.#instances.all()) {
        let at = index.get(term);
        if (at === undefined) {
          at = index.size;
          index.set(term, at);
          for (const column of counts) column.push(0);
        }
        (counts[LEXICAL_COLUMNS.indexOf(col as LexicalColumn)] as number[])[at] = n;
        tokens += n;
      }
      return { terms: [...index.keys()], counts, tokens };
    } finally {
      this.#clear.run();
    }
  }

  /** The index terms of a query word, in order (one, for a word of letters and digits). */
  terms(word: string): string[] {
    this.#insert.run(...LEXICAL_COLUMNS.map((column) => (column === "content" ? word : "")));
    try {
      return this.#terms.all().map((row) => row.term);
    } finally {
      this.#clear.run();
    }
  }

  close(): void {
    this.#db.close();
  }
}
