import {
  type OpenPalaceOptions,
  openPalace,
  type Palace,
  type RepairOptions,
  type RepairReport,
} from "./palace.js";
import { clearVectors, drawersWithoutVector } from "./vectors/local-vectors.js";

/**
 * Makes an open palace consistent again (run inside its write queue): applies pending vectors,
 * adds the vectors Chroma lacks and removes those no drawer has, and rebuilds the FTS index from
 * the registry. With `reembed`, the collection is dropped and every vector made again with the
 * embedding the palace was opened with, which palace.json then records. Each step is idempotent:
 * a repair cut short is finished by running it again.
 */
export async function repairOpenPalace(palace: Palace, options: RepairOptions): Promise<RepairReport> {
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

/**
 * Opens the palace in `dir`, repairs it and closes it. `reembed: true` with an `embedding`
 * other than the recorded one switches the palace to it (`atrium-palace repair --reembed`).
 */
export async function repairPalace(
  dir: string,
  options: Omit<OpenPalaceOptions, "create" | "allowEmbeddingChange"> & RepairOptions = {},
): Promise<RepairReport> {
  const palace = await openPalace(dir, { ...options, allowEmbeddingChange: options.reembed === true });
  try {
    return await palace.repair({ reembed: options.reembed === true });
  } finally {
    await palace.close();
  }
}
