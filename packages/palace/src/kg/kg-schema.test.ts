import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { describeEachStore, type TestDatabase } from "../../test/sql-stores.js";
import { openTestDatabase } from "../../test/test-database.js";
import { PalaceAccess } from "../access/palace-access.js";
import { SqliteDatabase } from "../db/sqlite/sqlite-database.js";
import { KnowledgeGraphFormatError } from "../errors.js";
import { createKnowledgeGraphTables, KG_SCHEMA_VERSION } from "./kg-schema.js";
import { KnowledgeGraph } from "./knowledge-graph.js";

/**
 * The kg_ tables and the indexes made for them, as "<type> <name>" by name: SQLite's own
 * (autoindexes) and PostgreSQL's (constraint indexes, identity sequences) left out.
 */
function kgObjects(database: TestDatabase): string[] {
  const sql =
    database.db.dialect.name === "postgres"
      ? `SELECT CASE c.relkind WHEN 'i' THEN 'index' ELSE 'table' END AS type, c.relname AS name
           FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
          WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'i') AND c.relname LIKE 'kg\\_%'
            AND NOT EXISTS (SELECT 1 FROM pg_constraint k WHERE k.conindid = c.oid)
          ORDER BY c.relname`
      : "SELECT type, name FROM sqlite_master WHERE name LIKE 'kg_%' AND name NOT LIKE 'sqlite_%' ORDER BY name";
  const rows = database.db.prepare(sql).all() as Array<{ type: string; name: string }>;
  return rows.map((row) => `${row.type} ${row.name}`);
}

describeEachStore((store) => {
  let database: TestDatabase;
  beforeEach(async () => {
    database = await store.open();
  });
  afterEach(() => database.close());

  it("creates only kg_ tables and indexes, idempotently, with a schema version row", () => {
    expect(createKnowledgeGraphTables(database.db)).toBeUndefined();
    expect(createKnowledgeGraphTables(database.db)).toBeUndefined();
    expect(kgObjects(database)).toEqual([
      "table kg_aliases",
      "index kg_aliases_entity",
      "table kg_entities",
      "index kg_entities_wing",
      "table kg_meta",
      "table kg_predicates",
      "table kg_triples",
      "index kg_triples_object",
      "index kg_triples_open",
      "index kg_triples_predicate",
      "index kg_triples_subject",
      "index kg_triples_wing",
    ]);
    expect(database.db.prepare("SELECT key, value FROM kg_meta").all()).toEqual([
      { key: "schema_version", value: String(KG_SCHEMA_VERSION) },
    ]);
  });

  it("refuses a graph written by a newer schema", () => {
    createKnowledgeGraphTables(database.db);
    database.db.prepare("UPDATE kg_meta SET value = '99' WHERE key = 'schema_version'").run();
    expect(() => createKnowledgeGraphTables(database.db)).toThrow(
      new KnowledgeGraphFormatError(
        `The knowledge graph in this palace has schema version 99, newer than this @atrium/palace understands (${KG_SCHEMA_VERSION}); upgrade @atrium/palace to open it`,
      ),
    );
  });
});

// Only SQLite palaces ever had schema 1: PostgreSQL graphs begin at schema 2.
describe("a schema-1 SQLite graph", () => {
  let database: ReturnType<typeof openTestDatabase>;
  let db: SqliteDatabase;
  beforeEach(() => {
    database = openTestDatabase();
    db = new SqliteDatabase(database.db);
  });
  afterEach(() => database.close());

  it('has its facts moved to wing "facts", once, and says how many', () => {
    // The tables as @atrium/palace 0.1 made them, with one fact and an alias.
    db.exec(`
      CREATE TABLE kg_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
      INSERT INTO kg_meta VALUES ('schema_version', '1');
      CREATE TABLE kg_entities (id INTEGER PRIMARY KEY, key TEXT NOT NULL UNIQUE, name TEXT NOT NULL, type TEXT, created_at TEXT NOT NULL);
      CREATE TABLE kg_aliases (key TEXT PRIMARY KEY, alias TEXT NOT NULL, entity_id INTEGER NOT NULL REFERENCES kg_entities(id) ON DELETE CASCADE);
      CREATE TABLE kg_predicates (name TEXT PRIMARY KEY, single_valued INTEGER NOT NULL CHECK (single_valued IN (0, 1)));
      CREATE TABLE kg_triples (seq INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, subject_id INTEGER NOT NULL REFERENCES kg_entities(id),
        predicate TEXT NOT NULL, object_id INTEGER NOT NULL REFERENCES kg_entities(id), valid_from TEXT, valid_from_ms INTEGER,
        valid_to TEXT, valid_to_ms INTEGER, source_drawer_id TEXT, confidence REAL, created_at TEXT NOT NULL);
      INSERT INTO kg_entities VALUES (1, 'alice', 'Alice', 'person', '2024-01-01T00:00:00.000Z');
      INSERT INTO kg_entities VALUES (2, 'tea', 'tea', NULL, '2024-01-01T00:00:00.000Z');
      INSERT INTO kg_aliases VALUES ('al', 'Al', 1);
      INSERT INTO kg_triples (id, subject_id, predicate, object_id, created_at) VALUES ('t_000000000000000000000001', 1, 'prefers', 2, '2024-01-01T00:00:00.000Z');
    `);
    expect(createKnowledgeGraphTables(db)).toEqual({
      fromVersion: 1,
      facts: 1,
      entities: 2,
      wing: "facts",
    });
    expect(createKnowledgeGraphTables(db)).toBeUndefined();
    const graph = new KnowledgeGraph(db);
    expect(
      graph.query({ subject: "al" }).map((fact) => [fact.wing, fact.subject, fact.predicate, fact.object]),
    ).toEqual([["facts", "Alice", "prefers", "tea"]]);
    expect(graph.scoped(PalaceAccess.of({ read: ["alice"] })).query({ subject: "al" })).toEqual([]);
    expect(db.prepare("SELECT value FROM kg_meta WHERE key = 'schema_version'").get()).toEqual({
      value: String(KG_SCHEMA_VERSION),
    });
  });
});
