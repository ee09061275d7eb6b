import { ClosedError, type Embedding } from "@atrium/spec";
import { AccessRecorder } from "../db/access-recorder.js";
import { DrawerRegistry } from "../db/drawer-registry.js";
import type { PalaceConfig, PalacePaths } from "../db/palace-dir.js";
import type { SqlDatabase } from "../db/sql/sql-database.js";
import type { PalaceLimits } from "../limits.js";
import type { ChromaConnection } from "../vectors/chroma-connection.js";
import { VectorIndex } from "../vectors/vector-index.js";
import { type ApplyResult, applyPendingVectors } from "../vectors/vector-sync.js";

/**
 * What every part of an open palace works on: palace.sqlite (the drawer registry and its
 * tables), the vector index, the embedding, the limits, and the queue that runs its writes one
 * at a time. The `Palace` facade owns one; modules of this package reach it with `palaceCore`,
 * which the package does not export.
 */
export class PalaceCore {
  readonly registry: DrawerRegistry;
  readonly index: VectorIndex;
  readonly accessLog: AccessRecorder;
  /** Opened with another embedding than palace.json records: only a re-embedding repair may write vectors. */
  embeddingChanged: boolean;
  /** A `deferVectors` write left vectors in the write log that this palace has not applied yet. */
  vectorsDeferred = false;
  closed = false;
  private writes: Promise<unknown> = Promise.resolve();

  constructor(
    readonly paths: PalacePaths,
    public config: PalaceConfig,
    readonly embedding: Embedding,
    readonly limits: Readonly<PalaceLimits>,
    readonly db: SqlDatabase,
    readonly connection: ChromaConnection,
    embeddingChanged: boolean,
  ) {
    this.embeddingChanged = embeddingChanged;
    this.registry = new DrawerRegistry(db, limits);
    this.index = new VectorIndex(connection, config.collection, embedding);
    this.accessLog = new AccessRecorder(db);
  }

  ensureOpen(): void {
    if (this.closed) throw new ClosedError(`Palace ${this.config.name}`);
  }

  /** Runs `body` after every earlier write of this palace, alone. */
  exclusive<T>(body: () => Promise<T>): Promise<T> {
    const run = this.writes.then(body);
    this.writes = run.catch(() => {});
    return run;
  }

  /** Waits for every write queued so far (failed ones too). */
  async settled(): Promise<void> {
    await this.writes.catch(() => {});
  }

  /** Applies pending vectors (deferred ones too); call inside `exclusive`. */
  async applyVectors(): Promise<ApplyResult> {
    if (this.embeddingChanged) return { upserted: 0, deleted: 0 };
    const applied = await applyPendingVectors(this.db, this.registry, this.index, this.embedding);
    this.vectorsDeferred = false;
    return applied;
  }

  /** Applies the vectors a `deferVectors` write left in the write log. Cheap when nothing was deferred. */
  async flush(): Promise<void> {
    this.ensureOpen();
    if (!this.vectorsDeferred) return;
    await this.exclusive(async () => {
      if (this.vectorsDeferred) await this.applyVectors();
    });
  }
}

const cores = new WeakMap<object, PalaceCore>();

/** Ties `core` to the palace facade that owns it (its constructor does). */
export function attachCore(palace: object, core: PalaceCore): void {
  cores.set(palace, core);
}

/**
 * The core of an open `Palace`, for the modules of this package that work below its public API
 * (export and import, the layers, the diary, a view's counts, tests).
 */
export function palaceCore(palace: object): PalaceCore {
  const core = cores.get(palace);
  if (core === undefined) throw new TypeError("palaceCore: not a Palace opened by openPalace");
  return core;
}
