import type { Database } from "better-sqlite3";
import { KnowledgeGraphFormatError } from "./kg-errors.js";

/** Bumped when the `kg_` tables change shape; a palace written by a newer version is refused. */
export const KG_SCHEMA_VERSION = 1;

/**
 * The knowledge graph's tables, all prefixed `kg_` so they sit beside the palace's own in one
 * SQLite file. Entities are keyed by a normalized name (`entityKey`) so lookups ignore case and
 * spacing; aliases point other keys at the same entity. Times are kept twice: the ISO text as
 * given (so "2023-05" renders as written) and epoch milliseconds (so `as_of` compares numbers).
 * A null `valid_from_ms` means "since an unknown time", a null `valid_to_ms` "still true".
 */
const TABLES_SQL = `
CREATE TABLE IF NOT EXISTS kg_meta (
  key TEXT PRIMARY KEY,
  value TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS kg_entities (
  id INTEGER PRIMARY KEY,
  key TEXT NOT NULL UNIQUE,
  name TEXT NOT NULL,
  type TEXT,
  created_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS kg_aliases (
  key TEXT PRIMARY KEY,
  alias TEXT NOT NULL,
  entity_id INTEGER NOT NULL REFERENCES kg_entities(id) ON DELETE CASCADE
);
CREATE INDEX IF NOT EXISTS kg_aliases_entity ON kg_aliases(entity_id);
CREATE TABLE IF NOT EXISTS kg_predicates (
  name TEXT PRIMARY KEY,
  single_valued INTEGER NOT NULL CHECK (single_valued IN (0, 1))
);
CREATE TABLE IF NOT EXISTS kg_triples (
  seq INTEGER PRIMARY KEY,
  id TEXT NOT NULL UNIQUE,
  subject_id INTEGER NOT NULL REFERENCES kg_entities(id),
  predicate TEXT NOT NULL,
  object_id INTEGER NOT NULL REFERENCES kg_entities(id),
  valid_from TEXT,
  valid_from_ms INTEGER,
  valid_to TEXT,
  valid_to_ms INTEGER,
  source_drawer_id TEXT,
  confidence REAL,
  created_at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS kg_triples_subject ON kg_triples(subject_id, predicate);
CREATE INDEX IF NOT EXISTS kg_triples_object ON kg_triples(object_id, predicate);
CREATE INDEX IF NOT EXISTS kg_triples_predicate ON kg_triples(predicate);
CREATE INDEX IF NOT EXISTS kg_triples_open ON kg_triples(subject_id, predicate) WHERE valid_to_ms IS NULL;
`;

/**
 * Creates the knowledge graph's tables and indexes if they are missing and records the schema
 * version; safe to call on every open. Refuses a graph written by a newer schema rather than
 * reading it wrongly.
 */
export function createKnowledgeGraphTables(db: Database): void {
  db.transaction(() => {
    db.exec(TABLES_SQL);
    const row = db.prepare("SELECT value FROM kg_meta WHERE key = 'schema_version'").get() as
      | { value: string }
      | undefined;
    if (row === undefined) {
      db.prepare("INSERT INTO kg_meta (key, value) VALUES ('schema_version', ?)").run(
        String(KG_SCHEMA_VERSION),
      );
      return;
    }
    const version = Number(row.value);
    if (!Number.isInteger(version) || version > KG_SCHEMA_VERSION) {
      throw new KnowledgeGraphFormatError(
        `The knowledge graph in this palace has schema version ${row.value}, newer than this @atrium/palace understands (${KG_SCHEMA_VERSION}); upgrade @atrium/palace to open it`,
      );
    }
  }).immediate();
}
