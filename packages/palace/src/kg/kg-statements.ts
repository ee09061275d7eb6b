import type { SqlDatabase, SqlStatement } from "../db/sql/sql-database.js";
import type { SqlDialect } from "../db/sql/sql-dialect.js";
import { inWingsSql, TRIPLE_SELECT, TRUE_AT_SQL } from "./kg-rows.js";

/**
 * The SQL of every statement the knowledge graph runs, in `dialect`. Written once for both stores
 * but for the JSON-array parameters (`dialect.jsonTexts`/`jsonIntegers`) and the aliases' order:
 * SQLite's rowid, PostgreSQL's `seq` column (see kg-schema.ts). Unknown `valid_from_ms` sorts
 * first ascending on both (`NULLS FIRST`: SQLite's default, not PostgreSQL's).
 */
function kgSql(dialect: SqlDialect) {
  const tInWings = inWingsSql("t", dialect);
  const entities = dialect.jsonIntegers("@entities");
  const aliasOrder = dialect.name === "postgres" ? "seq" : "rowid";
  return {
    upsertPredicate:
      "INSERT INTO kg_predicates (name, single_valued) VALUES (?, ?) ON CONFLICT(name) DO UPDATE SET single_valued = excluded.single_valued",
    getPredicate: "SELECT single_valued FROM kg_predicates WHERE name = ?",
    allPredicates: "SELECT name, single_valued FROM kg_predicates ORDER BY name",
    singleValued: "SELECT name FROM kg_predicates WHERE single_valued = 1 ORDER BY name",
    entityByKey: "SELECT id, key, wing, name, type, created_at FROM kg_entities WHERE key = ?",
    entityByAlias:
      "SELECT e.id, e.key, e.wing, e.name, e.type, e.created_at FROM kg_aliases a JOIN kg_entities e ON e.id = a.entity_id WHERE a.key = ?",
    entityById: "SELECT id, key, wing, name, type, created_at FROM kg_entities WHERE id = ?",
    entityPage: `SELECT id, key, wing, name, type, created_at FROM kg_entities e WHERE id > @after AND ${inWingsSql("e", dialect)} ORDER BY id LIMIT @limit`,
    entityWings: "SELECT DISTINCT wing FROM kg_entities ORDER BY wing",
    insertEntity:
      "INSERT INTO kg_entities (key, wing, name, type, created_at) VALUES (?, ?, ?, ?, ?) RETURNING id",
    setEntityType: "UPDATE kg_entities SET type = ? WHERE id = ?",
    aliasesOf: `SELECT alias FROM kg_aliases WHERE entity_id = ? ORDER BY ${aliasOrder}`,
    aliasCount: "SELECT count(*) AS count FROM kg_aliases WHERE entity_id = ?",
    insertAlias: "INSERT INTO kg_aliases (key, alias, entity_id) VALUES (?, ?, ?)",
    insertTriple: `INSERT INTO kg_triples
      (id, wing, subject_id, predicate, object_id, valid_from, valid_from_ms, valid_to, valid_to_ms, source_drawer_id, confidence, created_at)
      VALUES (@id, @wing, @subject, @predicate, @object, @validFrom, @validFromMs, @validTo, @validToMs, @source, @confidence, @createdAt)`,
    tripleById: `${TRIPLE_SELECT} WHERE t.id = ?`,
    triplePage: `${TRIPLE_SELECT} WHERE t.seq > @after AND ${tInWings} ORDER BY t.seq LIMIT @limit`,
    endTriple: "UPDATE kg_triples SET valid_to = ?, valid_to_ms = ? WHERE id = ?",
    sameFacts: `${TRIPLE_SELECT} WHERE t.subject_id = @subject AND t.predicate = @predicate AND t.object_id = @object ORDER BY t.seq`,
    openFacts: `${TRIPLE_SELECT} WHERE t.subject_id = @subject AND t.predicate = @predicate AND t.object_id = @object AND t.valid_to_ms IS NULL ORDER BY t.seq`,
    overlapping: `${TRIPLE_SELECT}
      WHERE t.subject_id = @subject AND t.predicate = @predicate AND t.object_id != @object
        AND (t.valid_from_ms IS NULL OR t.valid_from_ms < @to)
        AND (t.valid_to_ms IS NULL OR t.valid_to_ms > @from)
      ORDER BY t.seq`,
    timeline: `${TRIPLE_SELECT}
      WHERE (t.subject_id IN (${entities}) OR t.object_id IN (${entities}))
        AND ${tInWings}
      ORDER BY t.valid_from_ms NULLS FIRST, t.seq LIMIT @limit`,
    entityFacts: `${TRIPLE_SELECT}
      WHERE (t.subject_id IN (${entities}) OR t.object_id IN (${entities}))
        AND ${TRUE_AT_SQL} AND ${tInWings}
      ORDER BY t.subject_id NOT IN (${entities}), t.valid_from_ms IS NULL, t.valid_from_ms DESC, t.seq DESC LIMIT @limit`,
    topFacts: `${TRIPLE_SELECT}
      JOIN (SELECT subject_id AS id, count(*) AS degree FROM kg_triples c
            WHERE (valid_from_ms IS NULL OR valid_from_ms <= @at) AND (valid_to_ms IS NULL OR valid_to_ms > @at)
              AND ${inWingsSql("c", dialect)}
            GROUP BY subject_id) d ON d.id = t.subject_id
      WHERE ${TRUE_AT_SQL} AND ${tInWings}
      ORDER BY d.degree DESC, s.name, t.valid_from_ms IS NULL, t.valid_from_ms DESC, t.seq DESC LIMIT @limit`,
    counts: `SELECT
      (SELECT count(*) FROM kg_entities e WHERE ${inWingsSql("e", dialect)}) AS entities,
      (SELECT count(*) FROM kg_aliases a JOIN kg_entities e ON e.id = a.entity_id WHERE ${inWingsSql("e", dialect)}) AS aliases,
      (SELECT count(*) FROM kg_triples t WHERE ${tInWings}) AS triples,
      (SELECT count(*) FROM kg_triples t WHERE valid_to_ms IS NULL AND ${tInWings}) AS open,
      (SELECT count(DISTINCT predicate) FROM kg_triples t WHERE ${tInWings}) AS predicates`,
    topPredicates: `SELECT predicate, count(*) AS count FROM kg_triples t WHERE ${tInWings} GROUP BY predicate ORDER BY count DESC, predicate LIMIT 10`,
  } as const;
}

export type KgStatements = { readonly [Name in keyof ReturnType<typeof kgSql>]: SqlStatement };

/**
 * Every SQL statement the knowledge graph runs, prepared once per graph (better-sqlite3 compiles
 * a statement once and reuses it).
 */
export function prepareKgStatements(db: SqlDatabase): KgStatements {
  const entries = Object.entries(kgSql(db.dialect)).map(([name, sql]) => [name, db.prepare(sql)]);
  return Object.fromEntries(entries) as KgStatements;
}
