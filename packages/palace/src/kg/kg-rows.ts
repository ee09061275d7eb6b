import type { SqlDialect } from "../db/sql/sql-dialect.js";
import type { Triple } from "./kg-types.js";

/**
 * How stored triples are read: one SELECT head joining both entities' display names, and the
 * mapping from its row to the public `Triple` (SQL NULLs become absent fields).
 */
export const TRIPLE_SELECT = `
SELECT t.seq, t.id, t.wing, t.subject_id, t.object_id, s.name AS subject, t.predicate, o.name AS object,
       t.valid_from, t.valid_from_ms, t.valid_to, t.valid_to_ms, t.source_drawer_id, t.confidence, t.created_at
FROM kg_triples t
JOIN kg_entities s ON s.id = t.subject_id
JOIN kg_entities o ON o.id = t.object_id`;

export interface TripleRow {
  seq: number;
  id: string;
  wing: string;
  subject_id: number;
  object_id: number;
  subject: string;
  predicate: string;
  object: string;
  valid_from: string | null;
  valid_from_ms: number | null;
  valid_to: string | null;
  valid_to_ms: number | null;
  source_drawer_id: string | null;
  confidence: number | null;
  created_at: string;
}

export function tripleFromRow(row: TripleRow): Triple {
  const triple: Triple = {
    id: row.id,
    wing: row.wing,
    subject: row.subject,
    predicate: row.predicate,
    object: row.object,
    createdAt: row.created_at,
  };
  if (row.valid_from !== null) triple.validFrom = row.valid_from;
  if (row.valid_to !== null) triple.validTo = row.valid_to;
  if (row.source_drawer_id !== null) triple.sourceDrawerId = row.source_drawer_id;
  if (row.confidence !== null) triple.confidence = row.confidence;
  return triple;
}

/**
 * SQL condition: the row aliased `alias` is in one of the wings bound as `@wings` (a JSON array),
 * or `@wings` is NULL (an admin reads every wing). The CAST gives PostgreSQL the parameter's type,
 * which a bare `IS NULL` does not.
 */
export function inWingsSql(alias: string, dialect: SqlDialect): string {
  return `(CAST(@wings AS text) IS NULL OR ${alias}.wing IN (${dialect.jsonTexts("@wings")}))`;
}

/** SQL condition: the triple aliased `t` holds at the instant bound twice as `@at`. */
export const TRUE_AT_SQL =
  "(t.valid_from_ms IS NULL OR t.valid_from_ms <= @at) AND (t.valid_to_ms IS NULL OR t.valid_to_ms > @at)";
