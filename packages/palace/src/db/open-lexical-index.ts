import type { LexicalIndex } from "./lexical-index.js";
import { PgLexicalIndex } from "./postgres/pg-lexical-index.js";
import type { SqlDatabase } from "./sql/sql-database.js";
import { Fts5LexicalIndex } from "./sqlite/fts5-lexical-index.js";

/** The BM25 index of the store `db` is: FTS5 in SQLite, term tables in PostgreSQL. */
export function openLexicalIndex(db: SqlDatabase): LexicalIndex {
  return db.dialect.name === "postgres" ? new PgLexicalIndex(db) : new Fts5LexicalIndex(db);
}
