import { rethrowIfFatal } from "@atrium/spec";
import { type PalaceConfig, readPalaceConfig, writePalaceConfig } from "../db/palace-dir.js";
import { invalidInput, PalaceError } from "../errors.js";
import { clearVectors, drawersWithoutVector } from "../vectors/local-vectors.js";
import type { ApplyResult } from "../vectors/vector-sync.js";
import type { PalaceCore } from "./palace-core.js";

// Keeping a palace whole: vectors caught up, repair, palace.json's identity, closing.

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

/** Applies every write-log row whose vector is not in Chroma yet (done after each write and on open). */
export async function syncVectors(core: PalaceCore): Promise<ApplyResult> {
  core.ensureOpen();
  return core.exclusive(() => core.applyVectors());
}

/**
 * Makes the palace consistent again: applies pending vectors, adds the vectors Chroma lacks and
 * removes those no drawer has, and rebuilds the FTS index from the registry. With `reembed`, the
 * collection is dropped and every vector made again with the embedding the palace was opened
 * with, which palace.json then records. Each step is idempotent: a repair cut short is finished
 * by running it again.
 */
export async function repair(core: PalaceCore, options: RepairOptions): Promise<RepairReport> {
  core.ensureOpen();
  if (core.embeddingChanged && !options.reembed) {
    throw new PalaceError(
      "palace/conflict",
      `This palace was opened with embedding ${core.embedding.id}, not its own ${core.config.embedding}; repair it with reembed: true`,
    );
  }
  return core.exclusive(() => repairSteps(core, options));
}

async function repairSteps(core: PalaceCore, options: RepairOptions): Promise<RepairReport> {
  const { db, registry, index } = core;
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
    core.embeddingChanged = false;
    report.reembedded = true;
  } else {
    report.replayed = (await core.applyVectors()).upserted;
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
    await core.applyVectors();
  }
  report.vectorsRemoved = orphans.length;
  report.vectorsAdded = missing.length;
  report.lexicalRows = db.transaction(() => registry.rebuildLexical()).immediate();
  if (options.reembed) await recordEmbedding(core);
  return report;
}

/** Records in palace.json the embedding the vectors are now made with (after a re-embed). */
async function recordEmbedding(core: PalaceCore): Promise<void> {
  const current = await readPalaceConfig(core.paths.dir);
  core.config = { ...current, embedding: core.embedding.id };
  await writePalaceConfig(core.paths.dir, core.config);
  core.embeddingChanged = false;
}

/** Re-reads palace.json (after an import or another module changed it). */
export async function reloadConfig(core: PalaceCore): Promise<void> {
  core.config = await readPalaceConfig(core.paths.dir);
}

/** Sets (or clears) the L0 identity in palace.json, keeping keys other modules wrote there. */
export async function setIdentity(core: PalaceCore, identity: string | undefined): Promise<void> {
  core.ensureOpen();
  const { maxIdentityChars } = core.limits;
  if (identity !== undefined && (typeof identity !== "string" || identity.length > maxIdentityChars)) {
    throw invalidInput(
      "identity",
      `must be text of at most maxIdentityChars (${maxIdentityChars}) characters`,
    );
  }
  await core.exclusive(async () => {
    const { identity: _old, ...current } = await readPalaceConfig(core.paths.dir);
    const next: PalaceConfig = identity === undefined ? current : { ...current, identity };
    await writePalaceConfig(core.paths.dir, next);
    core.config = next;
  });
}

/** Closes palace.sqlite and lets go of Chroma (stopping the server if this process started it). */
export async function closeCore(core: PalaceCore): Promise<void> {
  core.closed = true;
  await core.settled();
  try {
    // Deferred vectors now, not at the next open: a palace closed after mining is searchable
    // by whoever opens it next without a replay. If this fails, the write log still has them.
    if (core.vectorsDeferred) await core.applyVectors();
  } catch (error) {
    rethrowIfFatal(error);
  }
  try {
    core.accessLog.flush(true);
  } catch (error) {
    rethrowIfFatal(error);
  }
  core.db.close();
  await core.connection.close();
}
