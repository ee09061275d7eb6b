import type { Database } from "better-sqlite3";
import type { DrawerRegistry } from "./db/drawer-registry.js";
import { clearVectors, drawersWithoutVector } from "./vectors/local-vectors.js";
import type { VectorIndex } from "./vectors/vector-index.js";
import type { ApplyResult } from "./vectors/vector-sync.js";

export interface RepairOptions {
  /** Drop the vector collection and embed every drawer again (with the embedding the palace was opened with). */
  reembed?: boolean;
}

export interface RepairReport {
  /** Drawers whose pending write-log rows were applied. */
  replayed: number;
  /** Vectors added for drawers Chroma lacked. */
  vectorsAdded: number;
  /** Vectors removed because no drawer has their id. */
  vectorsRemoved: number;
  /** FTS rows written by the rebuild. */
  lexicalRows: number;
  reembedded: boolean;
}

/** What a repair needs of an open palace (a `Palace`, inside its write queue). */
export interface RepairTarget {
  internals(): { db: Database; registry: DrawerRegistry; index: VectorIndex };
  applyVectors(): Promise<ApplyResult>;
  recordEmbedding(): Promise<void>;
  embeddingChanged: boolean;
}

/**
 * Makes an open palace consistent again (run inside its write queue): applies pending vectors,
 * adds the vectors Chroma lacks and removes those no drawer has, and rebuilds the FTS index from
 * the registry. With `reembed`, the collection is dropped and every vector made again with the
 * embedding the palace was opened with, which palace.json then records. Each step is idempotent:
 * a repair cut short is finished by running it again.
 */
export async function repairOpenPalace(palace: RepairTarget, options: RepairOptions): Promise<RepairReport> {
  const { db, registry, index } = palace.internals();
  const report: RepairReport = {
    replayed: 0,
    vectorsAdded: 0,
    vectorsRemoved: 0,
    lexicalRows: 0,
    reembedded: false,
  };
  if (options.reembed) {
    await index.drop();
    // Every drawer is re-embedded below; what the log still owed the old collection is moot.
    db.transaction(() => {
      db.prepare("UPDATE write_log SET applied_to_vectors = 1 WHERE applied_to_vectors = 0").run();
      clearVectors(db);
    }).immediate();
    palace.embeddingChanged = false;
    report.reembedded = true;
  } else {
    report.replayed = (await palace.applyVectors()).upserted;
  }
  const registered = new Set(
    (db.prepare("SELECT id FROM drawers").all() as { id: string }[]).map((row) => row.id),
  );
  const indexed = new Set(await index.ids());
  const orphans = [...indexed].filter((id) => !registered.has(id));
  const missing = [...registered].filter((id) => !indexed.has(id));
  // Drawers Chroma has but palace.sqlite keeps no vector for (a palace from schema v1): applying
  // them again stores it, so scoped searches can score them locally.
  const unstored = drawersWithoutVector(db).filter((id) => indexed.has(id));
  if (orphans.length > 0 || missing.length > 0 || unstored.length > 0) {
    db.transaction(() => {
      for (const id of orphans) registry.log("delete", id);
      for (const id of [...missing, ...unstored]) registry.log("upsert", id);
    }).immediate();
    await palace.applyVectors();
  }
  report.vectorsRemoved = orphans.length;
  report.vectorsAdded = missing.length;
  report.lexicalRows = db.transaction(() => registry.rebuildLexical()).immediate();
  if (options.reembed) await palace.recordEmbedding();
  return report;
}
