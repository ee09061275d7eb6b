import { PalaceError } from "../errors.js";
import { DRAWER_SOURCES_MIGRATION } from "./drawer-sources-schema.js";
import { LEXICAL_TABLE, lexicalTableSql } from "./lexical-table.js";
import { SOURCE_KINDS_MIGRATION } from "./source-kinds-schema.js";
import type { SqliteDatabase } from "./sqlite/sqlite-database.js";

/** Each drawer's vector, keyed by its registry rowid (see migration 2). */
export const VECTOR_TABLE = "drawer_vectors";

/**
 * The registry's schema, one migration per `user_version` step. Each runs inside the same
 * `BEGIN IMMEDIATE` transaction as the version bump, so two processes opening a new palace at
 * once migrate it exactly once. Tables other modules own (the knowledge graph's) are created by
 * those modules.
 */
const MIGRATIONS: readonly string[] = [
  `
  CREATE TABLE drawers (
    rowid INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    content TEXT NOT NULL,
    content_hash TEXT NOT NULL,
    wing TEXT NOT NULL,
    room TEXT NOT NULL,
    hall TEXT NOT NULL,
    source TEXT,
    position INTEGER,
    speaker TEXT,
    turn_id TEXT,
    session_id TEXT,
    timestamp TEXT NOT NULL,
    timestamp_ms INTEGER NOT NULL,
    filed_at TEXT NOT NULL,
    metadata TEXT,
    access_count INTEGER NOT NULL DEFAULT 0,
    last_accessed TEXT,
    pinned INTEGER NOT NULL DEFAULT 0
  );
  CREATE INDEX drawers_content_hash ON drawers(content_hash);
  CREATE INDEX drawers_scope ON drawers(wing, room, hall);
  CREATE INDEX drawers_source ON drawers(source, position);
  CREATE INDEX drawers_time ON drawers(timestamp_ms);
  CREATE INDEX drawers_pinned ON drawers(pinned) WHERE pinned = 1;
  CREATE TABLE sources (
    key TEXT PRIMARY KEY,
    content_hash TEXT NOT NULL,
    drawer_count INTEGER NOT NULL,
    mined_at TEXT NOT NULL
  );
  CREATE TABLE write_log (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    op TEXT NOT NULL CHECK (op IN ('upsert', 'delete')),
    drawer_id TEXT NOT NULL,
    applied_to_vectors INTEGER NOT NULL DEFAULT 0
  );
  CREATE INDEX write_log_pending ON write_log(applied_to_vectors, seq);
  CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
  `,
  // v2: each drawer's vector (L2-normalised float32) beside its row, so a scoped search scores
  // the scope's drawers itself instead of asking Chroma for a filtered query (the slow part at
  // 100k drawers). A cache of what Chroma holds: written when the vector is applied, dropped by
  // these triggers the moment the text it was made from changes or the drawer goes, so a row
  // present here is always current. Palaces from v1 start empty and fill as vectors are applied
  // (`repair` fills the rest); until a scope is complete, its search asks Chroma as before.
  `
  CREATE TABLE ${VECTOR_TABLE} (drawer_rowid INTEGER PRIMARY KEY, vector BLOB NOT NULL);
  CREATE TRIGGER drawer_vectors_removed AFTER DELETE ON drawers
    BEGIN DELETE FROM ${VECTOR_TABLE} WHERE drawer_rowid = old.rowid; END;
  CREATE TRIGGER drawer_vectors_stale AFTER UPDATE OF content, speaker ON drawers
    BEGIN DELETE FROM ${VECTOR_TABLE} WHERE drawer_rowid = old.rowid; END;
  `,
  DRAWER_SOURCES_MIGRATION,
  SOURCE_KINDS_MIGRATION,
];

export const SCHEMA_VERSION = MIGRATIONS.length;

/**
 * Brings the database to `SCHEMA_VERSION`, refusing one written by a newer @atrium/palace.
 * `rebuildLexical` refills a re-created FTS table inside the same transaction, so a crash can
 * never leave an empty index that its recorded definition calls current.
 */
export function migrate(database: SqliteDatabase, file: string, rebuildLexical: () => void): void {
  const db = database.sqlite;
  const step = db.transaction(() => {
    const version = db.pragma("user_version", { simple: true }) as number;
    if (version > SCHEMA_VERSION) {
      throw new PalaceError(
        "palace/format",
        `${file} has schema version ${version}, newer than this @atrium/palace knows (${SCHEMA_VERSION}); upgrade @atrium/palace`,
      );
    }
    for (let next = version; next < SCHEMA_VERSION; next++) db.exec(MIGRATIONS[next] as string);
    if (version < SCHEMA_VERSION) {
      db.pragma(`user_version = ${SCHEMA_VERSION}`);
      db.prepare("INSERT OR REPLACE INTO meta (key, value) VALUES ('schema_version', ?)").run(
        String(SCHEMA_VERSION),
      );
    }
    if (ensureLexicalTable(db)) rebuildLexical();
  });
  step.immediate();
}

/**
 * Creates the FTS5 table of `lexical-table.ts`. Its definition is recorded in `meta`: when the
 * lexical index changes shape (other columns, another tokenizer), the table is dropped and
 * `true` is returned so the caller rebuilds it from the registry.
 */
function ensureLexicalTable(db: SqliteDatabase["sqlite"]): boolean {
  const sql = lexicalTableSql(LEXICAL_TABLE);
  const recorded = db.prepare("SELECT value FROM meta WHERE key = 'lexical_table'").get() as
    | { value: string }
    | undefined;
  if (recorded?.value === sql) return false;
  db.exec(`DROP TABLE IF EXISTS ${LEXICAL_TABLE}`);
  db.exec(sql);
  db.prepare("INSERT OR REPLACE INTO meta (key, value) VALUES ('lexical_table', ?)").run(sql);
  return db.prepare("SELECT 1 FROM drawers LIMIT 1").get() !== undefined;
}
