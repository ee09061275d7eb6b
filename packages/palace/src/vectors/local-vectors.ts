import { VECTOR_TABLE } from "../db/schema.js";
import type { SqlDatabase } from "../db/sql/sql-database.js";
import type { VectorMatch } from "./vector-index.js";

/**
 * The palace's own copy of each drawer's vector in palace.sqlite (`drawer_vectors`), scored by
 * brute force for scoped searches. Measured at 100k drawers on a loaded machine, a scope of one
 * wing (400 drawers): Chroma's filtered query took 36–76 ms of its CPU and 123 ms p50 wall,
 * reading and scoring the scope's vectors here 2–3 ms of node CPU and 8–11 ms wall (see
 * `MAX_LOCAL_VECTOR_SCOPE` for wider scopes). Vectors are stored L2-normalised, so a dot product
 * is the cosine similarity Chroma's `cosine` space reports as 1 − distance.
 */

/** A vector as its stored blob: L2-normalised float32, little-endian (a zero vector stays zero). */
export function encodeVector(vector: readonly number[]): Buffer {
  let norm = 0;
  for (const value of vector) norm += value * value;
  const scale = norm > 0 ? 1 / Math.sqrt(norm) : 0;
  const floats = new Float32Array(vector.length);
  for (let at = 0; at < vector.length; at++) floats[at] = (vector[at] as number) * scale;
  return Buffer.from(floats.buffer, floats.byteOffset, floats.byteLength);
}

function decodeVector(blob: Buffer): Float32Array {
  // better-sqlite3 hands out a fresh buffer per blob; copy only if it is not 4-byte aligned.
  if (blob.byteOffset % 4 === 0) return new Float32Array(blob.buffer, blob.byteOffset, blob.byteLength / 4);
  return new Float32Array(new Uint8Array(blob).buffer);
}

/**
 * Records the vectors of drawers just applied to Chroma. Call inside the transaction that
 * confirms the drawers are unchanged: the triggers of schema v2 remove a row whose drawer's text
 * changes later, so what is stored is always current.
 */
export function storeVectors(db: SqlDatabase, vectors: ReadonlyMap<string, readonly number[]>): void {
  if (vectors.size === 0) return;
  // A blob parameter is bytea only where PostgreSQL is told so.
  const blob = db.dialect.name === "postgres" ? "CAST(? AS bytea)" : "?";
  const insert = db.prepare(
    `INSERT INTO ${VECTOR_TABLE} (drawer_rowid, vector) SELECT rowid, ${blob} FROM drawers WHERE id = ?
     ON CONFLICT (drawer_rowid) DO UPDATE SET vector = excluded.vector`,
  );
  for (const [id, vector] of vectors) insert.run(encodeVector(vector), id);
}

/** Forgets every stored vector (a re-embed makes them all again). */
export function clearVectors(db: SqlDatabase): void {
  db.prepare(`DELETE FROM ${VECTOR_TABLE}`).run();
}

/** Drawers with no stored vector (filled by `repair`). */
export function drawersWithoutVector(db: SqlDatabase): string[] {
  return (
    db
      .prepare(
        `SELECT d.id FROM drawers d WHERE NOT EXISTS (SELECT 1 FROM ${VECTOR_TABLE} v WHERE v.drawer_rowid = d.rowid)`,
      )
      .all() as { id: string }[]
  ).map((row) => row.id);
}

/**
 * The `n` drawers matching `where` (SQL on `drawers d`) nearest to `query`, scored here; ties
 * ordered by id as `VectorIndex.query` does. Undefined when more than `maxScope` drawers match or
 * some lack a stored vector: then the caller asks Chroma.
 */
export function nearestInScope(
  db: SqlDatabase,
  query: readonly number[],
  where: { sql: string; params: readonly (string | number)[] },
  n: number,
  maxScope: number,
): VectorMatch[] | undefined {
  // Counted on the drawers' own indexes; reading the vector table is the costly part, done once.
  const { drawers } = db
    .prepare(`SELECT COUNT(*) AS drawers FROM drawers d WHERE ${where.sql}`)
    .get(...where.params) as { drawers: number };
  if (drawers > maxScope) return undefined;
  if (drawers === 0) return [];
  const rows = db
    .prepare(
      `SELECT d.id AS id, v.vector AS vector FROM drawers d JOIN ${VECTOR_TABLE} v ON v.drawer_rowid = d.rowid WHERE ${where.sql}`,
    )
    .all(...where.params) as { id: string; vector: Buffer }[];
  if (rows.length < drawers) return undefined;
  const unit = decodeVector(encodeVector(query));
  const scored: VectorMatch[] = [];
  for (const { id, vector: blob } of rows) {
    const vector = decodeVector(blob);
    // A vector of another length (an embedding switch not yet repaired) cannot be compared.
    if (vector.length !== unit.length) return undefined;
    let dot = 0;
    for (let at = 0; at < unit.length; at++) dot += (unit[at] as number) * (vector[at] as number);
    scored.push({ id, distance: 1 - dot });
  }
  scored.sort((a, b) => a.distance - b.distance || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return scored.slice(0, n);
}
