import { afterEach, beforeEach, expect, it } from "vitest";
import { KnowledgeGraphFormatError } from "./kg-errors.js";
import { createKnowledgeGraphTables, KG_SCHEMA_VERSION } from "./kg-schema.js";
import { openTestDatabase } from "./test-database.js";

let database: ReturnType<typeof openTestDatabase>;
beforeEach(() => {
  database = openTestDatabase();
});
afterEach(() => database.close());

function kgObjects(): string[] {
  const rows = database.db
    .prepare(
      "SELECT type, name FROM sqlite_master WHERE name LIKE 'kg_%' AND name NOT LIKE 'sqlite_%' ORDER BY name",
    )
    .all() as Array<{ type: string; name: string }>;
  return rows.map((row) => `${row.type} ${row.name}`);
}

it("creates only kg_ tables and indexes, idempotently, with a schema version row", () => {
  createKnowledgeGraphTables(database.db);
  createKnowledgeGraphTables(database.db);
  expect(kgObjects()).toEqual([
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
