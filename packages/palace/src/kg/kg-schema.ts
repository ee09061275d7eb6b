import type { Database } from "better-sqlite3";
import { KnowledgeGraphFormatError } from "../errors.js";

/** Bumped when the `kg_` tables change shape; a palace written by a newer version is refused. */
export const KG_SCHEMA_VERSION = 2;

/**
 * The wing facts go to when none is named (the palace owner's `kg.add` without `wing`), and
 * where the facts of a palace from before facts had wings are moved to (schema 1 to 2).
 */
export const DEFAULT_FACT_WING = "facts";

/** What opening the graph migrated, for the caller to print. */
export interface KnowledgeGraphMigration {
  fromVersion: number;
  /** Facts (and entities) that had no wing and were moved to `wing`. */
  facts: number;
  entities: number;
  wing: string;
}

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
  wing TEXT NOT NULL,
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
  wing TEXT NOT NULL,
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

/** Indexes on the wing columns, made after a schema-1 graph has gained them. */
const WING_INDEXES_SQL = `
CREATE INDEX IF NOT EXISTS kg_entities_wing ON kg_entities(wing);
CREATE INDEX IF NOT EXISTS kg_triples_wing ON kg_triples(wing, seq);
`;

/**
 * Schema 1 to 2: facts and entities belong to a wing. Every entity and alias key is prefixed with
 * its wing (see `wingKey`), so each wing has its own names: one identity's "alice" is not another's.
 */
function migrateToWings(db: Database, wing: string): { facts: number; entities: number } {
  const facts = (db.prepare("SELECT count(*) AS n FROM kg_triples").get() as { n: number }).n;
  const entities = (db.prepare("SELECT count(*) AS n FROM kg_entities").get() as { n: number }).n;
  db.exec(`ALTER TABLE kg_entities ADD COLUMN wing TEXT NOT NULL DEFAULT ''`);
  db.exec(`ALTER TABLE kg_triples ADD COLUMN wing TEXT NOT NULL DEFAULT ''`);
  db.prepare("UPDATE kg_entities SET wing = ?, key = ? || char(0) || key").run(wing, wing);
  db.prepare("UPDATE kg_aliases SET key = ? || char(0) || key").run(wing);
  db.prepare("UPDATE kg_triples SET wing = ?").run(wing);
  return { facts, entities };
}

/**
 * Creates the knowledge graph's tables and indexes if they are missing and records the schema
 * version; safe to call on every open. Refuses a graph written by a newer schema rather than
 * reading it wrongly.
 */
export function createKnowledgeGraphTables(db: Database): KnowledgeGraphMigration | undefined {
  return db
    .transaction(() => {
      db.exec(TABLES_SQL);
      const row = db.prepare("SELECT value FROM kg_meta WHERE key = 'schema_version'").get() as
        | { value: string }
        | undefined;
      const setVersion = () =>
        db
          .prepare("INSERT OR REPLACE INTO kg_meta (key, value) VALUES ('schema_version', ?)")
          .run(String(KG_SCHEMA_VERSION));
      if (row === undefined) {
        setVersion();
        db.exec(WING_INDEXES_SQL);
        return undefined;
      }
      const version = Number(row.value);
      if (!Number.isInteger(version) || version > KG_SCHEMA_VERSION) {
        throw new KnowledgeGraphFormatError(
          `The knowledge graph in this palace has schema version ${row.value}, newer than this @atrium/palace understands (${KG_SCHEMA_VERSION}); upgrade @atrium/palace to open it`,
        );
      }
      let migration: KnowledgeGraphMigration | undefined;
      if (version < 2) {
        migration = {
          fromVersion: version,
          ...migrateToWings(db, DEFAULT_FACT_WING),
          wing: DEFAULT_FACT_WING,
        };
      }
      if (version < KG_SCHEMA_VERSION) setVersion();
      db.exec(WING_INDEXES_SQL);
      return migration;
    })
    .immediate();
}
