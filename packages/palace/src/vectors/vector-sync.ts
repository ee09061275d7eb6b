import type { Metadata } from "@atrium/chroma";
import type { Embedding } from "@atrium/spec";
import type { DrawerRegistry } from "../db/drawer-registry.js";
import { type DrawerRow, rowToDraft } from "../db/drawer-row.js";
import type { SqlDatabase } from "../db/sql/sql-database.js";
import { WRITE_LOG_KEEP_APPLIED } from "../tuning.js";
import { storeVectors } from "./local-vectors.js";
import type { VectorIndex } from "./vector-index.js";
import { vectorText } from "./vector-text.js";

/** Log rows applied per round (a replay after a crash may find many). */
const APPLY_ROUND = 5_000;
/** Rounds of re-applying drawers another writer changed meanwhile before leaving them to the next replay. */
const MAX_VERIFY_ROUNDS = 5;

/** What the vector index stores beside a drawer's vector: the fields search filters on. */
export function vectorMetadata(row: DrawerRow): Metadata {
  const metadata: Metadata = {
    wing: row.wing,
    room: row.room,
    hall: row.hall,
    timestamp_ms: row.timestamp_ms,
  };
  if (row.source !== null) metadata.source = row.source;
  return metadata;
}

/** What a drawer's vector depends on; equal signatures mean the stored vector is current. */
function signature(row: DrawerRow | undefined): string {
  return row ? JSON.stringify([vectorText(rowToDraft(row)), vectorMetadata(row)]) : "";
}

export interface ApplyResult {
  upserted: number;
  deleted: number;
}

/**
 * Brings Chroma up to the registry: every unapplied write-log row names a drawer whose vector
 * may be stale. The vector written is the registry's *current* state (a row → upsert, no row →
 * delete), never the logged op, and no lock is held across the Chroma calls. After them, each
 * drawer is checked again in a short transaction: unchanged → its log rows are marked applied;
 * changed by another writer meanwhile → applied again. So whatever the interleaving of
 * processes, the last write Chroma sees for a drawer matches the registry.
 */
export async function applyPendingVectors(
  db: SqlDatabase,
  registry: DrawerRegistry,
  index: VectorIndex,
  embedding: Embedding,
  precomputed: ReadonlyMap<string, number[]> = new Map(),
): Promise<ApplyResult> {
  const pendingStatement = db.prepare(
    "SELECT seq, drawer_id FROM write_log WHERE applied_to_vectors = 0 AND seq > ? ORDER BY seq LIMIT ?",
  );
  // One statement for a whole round: per drawer, it would scan every pending row each time
  // (write_log has no drawer_id index), quadratic in the batch size.
  const mark = db.prepare(
    `UPDATE write_log SET applied_to_vectors = 1 WHERE applied_to_vectors = 0 AND seq <= ? AND drawer_id IN (${db.dialect.jsonTexts("?")})`,
  );
  const prune = db.prepare(
    "DELETE FROM write_log WHERE applied_to_vectors = 1 AND seq <= (SELECT MAX(seq) FROM write_log) - ?",
  );
  const total: ApplyResult = { upserted: 0, deleted: 0 };
  let lastSeq = 0;
  for (;;) {
    const fresh = pendingStatement.all(lastSeq, APPLY_ROUND) as { seq: number; drawer_id: string }[];
    if (fresh.length === 0) break;
    const maxSeq = fresh[fresh.length - 1]?.seq as number;
    let ids = [...new Set(fresh.map((row) => row.drawer_id))];
    for (let round = 0; round < MAX_VERIFY_ROUNDS && ids.length > 0; round++) {
      const applied = await applyState(registry, index, embedding, precomputed, ids, total);
      const changed: string[] = [];
      db.transaction(() => {
        const unchanged: string[] = [];
        const current = new Map<string, number[]>();
        const rows = new Map(registry.byIds(ids).map((row) => [row.id, row]));
        for (const id of ids) {
          if (signature(rows.get(id)) !== applied.written.get(id)) {
            changed.push(id);
            continue;
          }
          unchanged.push(id);
          const vector = applied.vectors.get(id);
          if (vector) current.set(id, vector);
        }
        // The local copy goes in with the confirmation, so it never holds a vector Chroma lacks.
        storeVectors(db, current);
        if (unchanged.length > 0) mark.run(maxSeq, JSON.stringify(unchanged));
        prune.run(WRITE_LOG_KEEP_APPLIED);
      }).immediate();
      ids = changed;
    }
    lastSeq = maxSeq;
  }
  return total;
}

/**
 * Writes the registry's current state of `ids` to Chroma; returns the signature each was written
 * from and the vectors written.
 */
async function applyState(
  registry: DrawerRegistry,
  index: VectorIndex,
  embedding: Embedding,
  precomputed: ReadonlyMap<string, number[]>,
  ids: readonly string[],
  total: ApplyResult,
): Promise<{ written: Map<string, string>; vectors: Map<string, number[]> }> {
  const rows = new Map(registry.byIds(ids).map((row) => [row.id, row]));
  const written = new Map<string, string>();
  const gone = ids.filter((id) => !rows.has(id));
  const present = [...rows.values()];
  const missing = present.filter((row) => !precomputed.has(row.id));
  const embedded = await embedding.embed(missing.map((row) => vectorText(rowToDraft(row))));
  const vectors = new Map<string, number[]>();
  for (const row of present) {
    const vector = precomputed.get(row.id);
    if (vector) vectors.set(row.id, vector);
  }
  missing.forEach((row, at) => {
    vectors.set(row.id, embedded[at] as number[]);
  });
  for (const row of present) written.set(row.id, signature(row));
  for (const id of gone) written.set(id, "");
  if (gone.length > 0) await index.delete(gone);
  if (present.length > 0) {
    await index.upsert(
      present.map((row) => ({
        id: row.id,
        embedding: vectors.get(row.id) as number[],
        metadata: vectorMetadata(row),
      })),
    );
  }
  total.upserted += present.length;
  total.deleted += gone.length;
  return { written, vectors };
}
