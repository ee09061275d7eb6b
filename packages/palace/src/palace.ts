import type { Embedding } from "@atrium/spec";
import type { PalaceAccess } from "./access/palace-access.js";
import { deleteDrawer, fileDrafts, getDrawer, updateDrawer } from "./core/drawer-crud.js";
import { checkDuplicate, listDrawers, searchDrawers, status, taxonomy } from "./core/drawer-queries.js";
import {
  closeCore,
  type RepairOptions,
  type RepairReport,
  repair,
  setIdentity,
  syncVectors,
} from "./core/maintenance.js";
import { attachCore, PalaceCore } from "./core/palace-core.js";
import type {
  DrawerPage,
  DrawerUpdate,
  DuplicateCheck,
  FileResult,
  ListOptions,
  PalaceStatus,
  WingCount,
} from "./core/palace-types.js";
import { getSource, listSources, removeSource, replaceSource } from "./core/source-ledger.js";
import type { PalaceConfig, PalacePaths } from "./db/palace-dir.js";
import type { SqlDatabase } from "./db/sql/sql-database.js";
import type { Drawer, DrawerDraft } from "./drawers/drawer.js";
import { KnowledgeGraph } from "./kg/index.js";
import type { PalaceLimits } from "./limits.js";
import type {
  DrawerSink,
  RemoveSourceResult,
  ReplaceSourceOptions,
  ReplaceSourceResult,
  SourceRecord,
} from "./mining/drawer-sink.js";
import type { SearchHit, SearchOptions } from "./search/hybrid-search.js";
import { Tunnels } from "./tunnels/tunnels.js";
import type { ChromaConnection } from "./vectors/chroma-connection.js";
import type { ApplyResult } from "./vectors/vector-sync.js";

/**
 * A palace: verbatim drawers in wings and rooms, with hybrid search. SQLite (palace.sqlite) is the
 * source of truth; Chroma holds the vectors, caught up from the write log after every write.
 * Writes of one Palace run one at a time; several processes may share a palace (SQLite's
 * `BEGIN IMMEDIATE` is the writer lock between them).
 *
 * A facade: drawers by id (`core/drawer-crud.ts`), the miners' source ledger
 * (`core/source-ledger.ts`), queries (`core/drawer-queries.ts`) and maintenance
 * (`core/maintenance.ts`), all over one `PalaceCore`.
 */
export class Palace implements DrawerSink, AsyncDisposable {
  readonly #core: PalaceCore;
  readonly #graph: KnowledgeGraph;
  readonly #tunnels: Tunnels;
  #closing: Promise<void> | undefined;

  /** @internal use `openPalace`. */
  constructor(
    paths: PalacePaths,
    config: PalaceConfig,
    embedding: Embedding,
    limits: Readonly<PalaceLimits>,
    db: SqlDatabase,
    connection: ChromaConnection,
    embeddingChanged: boolean,
  ) {
    this.#core = new PalaceCore(paths, config, embedding, limits, db, connection, embeddingChanged);
    attachCore(this, this.#core);
    this.#graph = new KnowledgeGraph(db);
    this.#tunnels = new Tunnels(db, limits);
  }

  /** The temporal knowledge graph, in palace.sqlite (its tables are made at init and open). */
  get kg(): KnowledgeGraph {
    this.#core.ensureOpen();
    return this.#graph;
  }

  /** Tunnels: room names shared by wings, and explicit links between rooms or drawers. */
  get tunnels(): Tunnels {
    this.#core.ensureOpen();
    return this.#tunnels;
  }

  get paths(): PalacePaths {
    return this.#core.paths;
  }

  get dir(): string {
    return this.#core.paths.dir;
  }

  get name(): string {
    return this.#core.config.name;
  }

  get embedding(): Embedding {
    return this.#core.embedding;
  }

  get limits(): Readonly<PalaceLimits> {
    return this.#core.limits;
  }

  /** Opened with another embedding than palace.json records: only a re-embedding repair may write vectors. */
  get embeddingChanged(): boolean {
    return this.#core.embeddingChanged;
  }

  /** L0: who the user (or agent) is, from palace.json. */
  get identity(): string | undefined {
    return this.#core.config.identity;
  }

  /**
   * The open palace.sqlite, for modules that keep their own tables in it (the knowledge graph).
   * Their writes must not hold a transaction across an `await`.
   */
  get database(): SqlDatabase {
    this.#core.ensureOpen();
    return this.#core.db;
  }

  /** Files drafts; each result says whether it was new. One transaction for the whole batch. */
  file(drafts: readonly DrawerDraft[]): Promise<FileResult[]> {
    return fileDrafts(this.#core, drafts);
  }

  get(id: string): Promise<Drawer | undefined> {
    return getDrawer(this.#core, id);
  }

  /**
   * Changes a drawer in place (room, hall, speaker, timestamp, metadata, pin, ...), keeping its
   * id. Content, wing and turnId make the id: to edit them, delete the drawer and file a new one.
   */
  update(id: string, changes: DrawerUpdate): Promise<Drawer> {
    return updateDrawer(this.#core, id, changes);
  }

  /** Pins a drawer: the wake-up offers pinned drawers first. */
  pin(id: string): Promise<Drawer> {
    return this.update(id, { pinned: true });
  }

  unpin(id: string): Promise<Drawer> {
    return this.update(id, { pinned: false });
  }

  /** Removes a drawer; false when there was none with this id. */
  delete(id: string): Promise<boolean> {
    return deleteDrawer(this.#core, id);
  }

  getSource(key: string): SourceRecord | undefined {
    return getSource(this.#core, key);
  }

  /** Every mined source whose key starts with `prefix`, by key. */
  listSources(prefix: string): SourceRecord[] {
    return listSources(this.#core, prefix);
  }

  /**
   * Files `drafts` as the whole content of source `key` in one transaction: drawers the source
   * no longer holds leave the palace unless another source holds them too (or they were filed
   * directly), kept ones are moved if their room (or other fields) changed, and the source's hash
   * and `origin` are recorded. A draft's `source` defaults to `key`. A drawer whose text another
   * source already filed in the same wing stays that source's own, is held by this one too, and
   * counts as kept. With `deferVectors`, the vectors wait for `flush` (or the next write, search,
   * duplicate check, status, export or close, which flush first).
   */
  replaceSource(
    key: string,
    hash: string,
    drafts: DrawerDraft[],
    origin?: string,
    options: ReplaceSourceOptions = {},
  ): Promise<ReplaceSourceResult> {
    return replaceSource(this.#core, key, hash, drafts, origin, options);
  }

  /**
   * Applies the vectors `replaceSource(..., { deferVectors: true })` left in the write log, so
   * every reader of this palace sees them. Cheap when nothing was deferred.
   */
  flush(): Promise<void> {
    return this.#core.flush();
  }

  /**
   * Forgets mined source `key` in one transaction: its drawers leave the palace unless another
   * source holds them too (or they were filed directly; those move to that holder).
   */
  removeSource(key: string): Promise<RemoveSourceResult> {
    return removeSource(this.#core, key);
  }

  /** Drawers in filing order, filtered, a page at a time. */
  list(options: ListOptions = {}): Promise<DrawerPage> {
    return listDrawers(this.#core, options);
  }

  /**
   * Whether `content` is already filed: the same text anywhere (by hash), then drawers whose
   * vectors are at least `threshold` similar (cosine), optionally within one wing.
   */
  checkDuplicate(
    content: string,
    options: { threshold?: number; wing?: string; access?: PalaceAccess } = {},
  ): Promise<DuplicateCheck> {
    return checkDuplicate(this.#core, content, options);
  }

  /** Drawer counts by wing, room and hall (only what `access` reads, when given). */
  taxonomy(options: { access?: PalaceAccess } = {}): Promise<WingCount[]> {
    return taxonomy(this.#core, options.access);
  }

  status(): Promise<PalaceStatus> {
    return status(this.#core);
  }

  /**
   * Hybrid (or one-leg) search, filtered by wing, room, hall and time; records the hits' access
   * (one UPDATE) unless `recordAccess: false`.
   */
  search(query: string, options: SearchOptions & { recordAccess?: boolean } = {}): Promise<SearchHit[]> {
    return searchDrawers(this.#core, query, options);
  }

  /** Sets (or clears) the L0 identity in palace.json, keeping keys other modules wrote there. */
  setIdentity(identity: string | undefined): Promise<void> {
    return setIdentity(this.#core, identity);
  }

  /** Applies every write-log row whose vector is not in Chroma yet (done after each write and on open). */
  syncVectors(): Promise<ApplyResult> {
    return syncVectors(this.#core);
  }

  /**
   * Makes the palace consistent again: applies pending vectors, adds vectors Chroma lacks and
   * removes those no drawer has, and rebuilds the FTS index from the registry. With `reembed`,
   * every vector is made again with the embedding the palace was opened with, and palace.json
   * records it.
   */
  repair(options: RepairOptions = {}): Promise<RepairReport> {
    return repair(this.#core, options);
  }

  /** Closes the registry and lets go of Chroma (stopping the server if this process started it). Idempotent. */
  close(): Promise<void> {
    this.#closing ??= closeCore(this.#core);
    return this.#closing;
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }
}
