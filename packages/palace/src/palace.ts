import { ClosedError, type Embedding, rethrowIfFatal } from "@atrium/spec";
import type { Database } from "better-sqlite3";
import type { PalaceAccess } from "./access/palace-access.js";
import { AccessRecorder } from "./db/access-recorder.js";
import { type DrawerChanges, DrawerRegistry } from "./db/drawer-registry.js";
import { DRAWER_COLUMNS, type DrawerRow, rowToDrawer } from "./db/drawer-row.js";
import type { Drawer, DrawerDraft } from "./drawers/drawer.js";
import { contentHash, drawerId } from "./drawers/drawer-id.js";
import { type CheckedDraft, checkDraft, checkMetadata, checkName } from "./drawers/validate-draft.js";
import { invalidInput, PalaceError } from "./errors.js";
import { KnowledgeGraph } from "./kg/index.js";
import type { PalaceLimits } from "./limits.js";
import type {
  DrawerSink,
  RemoveSourceResult,
  ReplaceSourceOptions,
  ReplaceSourceResult,
  SourceRecord,
} from "./mining/drawer-sink.js";
import { type PalaceConfig, type PalacePaths, readPalaceConfig, writePalaceConfig } from "./palace-dir.js";
import type {
  DrawerPage,
  DrawerUpdate,
  DuplicateCheck,
  DuplicateMatch,
  FileResult,
  ListOptions,
  PalaceStatus,
  WingCount,
} from "./palace-types.js";
import { type RepairOptions, type RepairReport, repairOpenPalace } from "./repair-steps.js";
import {
  checkFilter,
  filterSql,
  filterWhere,
  hybridSearch,
  type SearchHit,
  type SearchOptions,
} from "./search/hybrid-search.js";
import { DUPLICATE_CANDIDATES, DUPLICATE_DEFAULT_THRESHOLD } from "./tuning.js";
import { Tunnels } from "./tunnels/tunnels.js";
import type { ChromaConnection } from "./vectors/chroma-connection.js";
import { VectorIndex } from "./vectors/vector-index.js";
import { type ApplyResult, applyPendingVectors } from "./vectors/vector-sync.js";
import { vectorText } from "./vectors/vector-text.js";

/**
 * A palace: verbatim drawers in wings and rooms, with hybrid search. SQLite (palace.sqlite) is the
 * source of truth; Chroma holds the vectors, caught up from the write log after every write.
 * Writes of one Palace run one at a time; several processes may share a palace (SQLite's
 * `BEGIN IMMEDIATE` is the writer lock between them).
 */
export class Palace implements DrawerSink, AsyncDisposable {
  private readonly registry: DrawerRegistry;
  private readonly index: VectorIndex;
  private readonly access: AccessRecorder;
  private readonly graph: KnowledgeGraph;
  private readonly links: Tunnels;
  private writes: Promise<unknown> = Promise.resolve();
  private closed = false;
  private closing: Promise<void> | undefined;
  /** A `deferVectors` write left vectors in the write log that this Palace has not applied yet. */
  private vectorsDeferred = false;
  /** Opened with another embedding than palace.json records: only a re-embedding repair may write vectors. */
  embeddingChanged: boolean;

  /** @internal use `openPalace`. */
  constructor(
    readonly paths: PalacePaths,
    private config: PalaceConfig,
    readonly embedding: Embedding,
    readonly limits: Readonly<PalaceLimits>,
    private readonly db: Database,
    private readonly connection: ChromaConnection,
    embeddingChanged: boolean,
  ) {
    this.embeddingChanged = embeddingChanged;
    this.registry = new DrawerRegistry(db, limits);
    this.index = new VectorIndex(connection, config.collection, embedding);
    this.access = new AccessRecorder(db, limits.busyTimeoutMs);
    this.graph = new KnowledgeGraph(db);
    this.links = new Tunnels(db, limits);
  }

  /** The temporal knowledge graph, in palace.sqlite (its tables are made at init and open). */
  get kg(): KnowledgeGraph {
    this.ensureOpen();
    return this.graph;
  }

  /** Tunnels: room names shared by wings, and explicit links between rooms or drawers. */
  get tunnels(): Tunnels {
    this.ensureOpen();
    return this.links;
  }

  get dir(): string {
    return this.paths.dir;
  }

  get name(): string {
    return this.config.name;
  }

  /** L0: who the user (or agent) is, from palace.json. */
  get identity(): string | undefined {
    return this.config.identity;
  }

  /**
   * The open palace.sqlite, for modules that keep their own tables in it (the knowledge graph).
   * Their writes must not hold a transaction across an `await`.
   */
  get database(): Database {
    this.ensureOpen();
    return this.db;
  }

  /** Files drafts; each result says whether it was new. One transaction for the whole batch. */
  async file(drafts: readonly DrawerDraft[]): Promise<FileResult[]> {
    this.ensureOpen();
    const checked = this.checkDrafts(drafts, "drafts");
    return this.exclusive(async () => {
      const filedAt = new Date().toISOString();
      const ids = checked.map((draft) => drawerId(draft));
      const results = this.db
        .transaction(() => {
          const seen = new Set<string>();
          const filed = checked.map((draft, at) => {
            const id = ids[at] as string;
            if (seen.has(id)) return { id, created: false };
            seen.add(id);
            const existing = this.registry.byId(id);
            if (existing) {
              // Filed again (directly, or under another source): that keeps it when its first source lets go.
              this.registry.hold(existing, draft.source, draft.position);
              return { id, created: false };
            }
            this.registry.insert(draft, id, filedAt);
            return { id, created: true };
          });
          this.registry.flushLexical();
          return filed;
        })
        .immediate();
      await this.applyVectors();
      return results;
    });
  }

  getSource(key: string): SourceRecord | undefined {
    this.ensureOpen();
    const row = this.db
      .prepare("SELECT key, content_hash, drawer_count, mined_at, origin FROM sources WHERE key = ?")
      .get(key) as SourceDbRow | undefined;
    return row && sourceRecord(row);
  }

  /** Every mined source whose key starts with `prefix`, by key. */
  listSources(prefix: string): SourceRecord[] {
    this.ensureOpen();
    if (typeof prefix !== "string") throw invalidInput("prefix", 'must be text ("" lists every source)');
    const rows = this.db
      .prepare(
        "SELECT key, content_hash, drawer_count, mined_at, origin FROM sources WHERE substr(key, 1, length(?)) = ? ORDER BY key",
      )
      .all(prefix, prefix) as SourceDbRow[];
    return rows.map(sourceRecord);
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
  async replaceSource(
    key: string,
    hash: string,
    drafts: DrawerDraft[],
    origin?: string,
    options: ReplaceSourceOptions = {},
  ): Promise<ReplaceSourceResult> {
    this.ensureOpen();
    if (typeof key !== "string" || key === "") throw invalidInput("key", "must be non-empty text");
    if (typeof hash !== "string" || hash === "") throw invalidInput("contentHash", "must be non-empty text");
    if (origin !== undefined && (typeof origin !== "string" || origin === ""))
      throw invalidInput("origin", "must be non-empty text when given");
    drafts.forEach((draft, at) => {
      if (draft.source !== undefined && draft.source !== key) {
        throw invalidInput(
          `drafts[${at}].source`,
          `is ${JSON.stringify(draft.source)}, but the source being replaced is ${JSON.stringify(key)}`,
        );
      }
    });
    const checked = this.checkDrafts(
      drafts.map((draft) => ({ ...draft, source: key })),
      "drafts",
    );
    return this.exclusive(async () => {
      const filedAt = new Date().toISOString();
      const result = this.db
        .transaction(() => {
          const before = new Set(this.registry.heldBy(key));
          const wanted = new Set<string>();
          const counts: ReplaceSourceResult = { added: 0, kept: 0, removed: 0 };
          checked.forEach((draft, at) => {
            const id = drawerId(draft);
            if (wanted.has(id)) return;
            wanted.add(id);
            const row = this.registry.byId(id);
            if (!row) {
              this.registry.insert(draft, id, filedAt);
              counts.added++;
              return;
            }
            counts.kept++;
            before.delete(row.rowid);
            this.registry.hold(row, key, draft.position);
            if (row.source === key) {
              this.registry.update(row, changedFields(row, draft, drafts[at]?.timestamp !== undefined));
            }
          });
          for (const row of this.registry.byRowids([...before])) {
            if (this.registry.release(row, key)) counts.removed++;
          }
          this.db
            .prepare(
              "INSERT INTO sources (key, content_hash, drawer_count, mined_at, origin) VALUES (?, ?, ?, ?, ?) ON CONFLICT(key) DO UPDATE SET content_hash = excluded.content_hash, drawer_count = excluded.drawer_count, mined_at = excluded.mined_at, origin = COALESCE(excluded.origin, sources.origin)",
            )
            .run(key, hash, wanted.size, filedAt, origin ?? null);
          this.registry.flushLexical();
          return counts;
        })
        .immediate();
      if (options.deferVectors === true) this.vectorsDeferred = true;
      else await this.applyVectors();
      return result;
    });
  }

  /**
   * Applies the vectors `replaceSource(..., { deferVectors: true })` left in the write log, so
   * every reader of this palace sees them. Cheap when nothing was deferred.
   */
  async flush(): Promise<void> {
    this.ensureOpen();
    if (!this.vectorsDeferred) return;
    await this.exclusive(async () => {
      if (this.vectorsDeferred) await this.applyVectors();
    });
  }

  /**
   * Forgets mined source `key` in one transaction: its drawers leave the palace unless another
   * source holds them too (or they were filed directly; those move to that holder).
   */
  async removeSource(key: string): Promise<RemoveSourceResult> {
    this.ensureOpen();
    if (typeof key !== "string" || key === "") throw invalidInput("key", "must be non-empty text");
    return this.exclusive(async () => {
      const result = this.db
        .transaction(() => {
          const found = this.db.prepare("DELETE FROM sources WHERE key = ?").run(key).changes > 0;
          const counts: RemoveSourceResult = { found, removed: 0, kept: 0 };
          for (const row of this.registry.byRowids(this.registry.heldBy(key))) {
            if (this.registry.release(row, key)) counts.removed++;
            else counts.kept++;
          }
          this.registry.flushLexical();
          return counts;
        })
        .immediate();
      if (result.removed + result.kept > 0) await this.applyVectors();
      return result;
    });
  }

  async get(id: string): Promise<Drawer | undefined> {
    this.ensureOpen();
    const row = this.registry.byId(id);
    return row && rowToDrawer(row);
  }

  /** Drawers in filing order, filtered, a page at a time. */
  async list(options: ListOptions = {}): Promise<DrawerPage> {
    this.ensureOpen();
    const limit = options.limit ?? 100;
    if (!Number.isInteger(limit) || limit < 1 || limit > this.limits.maxListDrawers) {
      throw invalidInput(
        "limit",
        `must be an integer from 1 to ${this.limits.maxListDrawers}, got ${String(limit)}`,
      );
    }
    const after = options.cursor === undefined ? 0 : Number(options.cursor);
    if (!Number.isInteger(after) || after < 0) {
      throw invalidInput("cursor", "must be the nextCursor of a previous page");
    }
    const { sql, params } = filterSql(checkFilter(options));
    const conditions = ["d.rowid > ?", ...(sql ? [sql] : [])];
    const values: (string | number)[] = [after, ...params];
    if (options.source !== undefined) {
      conditions.push("d.source = ?");
      values.push(options.source);
    }
    if (options.pinned !== undefined) {
      conditions.push("d.pinned = ?");
      values.push(options.pinned ? 1 : 0);
    }
    const rows = this.db
      .prepare(
        `SELECT ${DRAWER_COLUMNS} FROM drawers d WHERE ${conditions.join(" AND ")} ORDER BY d.rowid LIMIT ?`,
      )
      .all(...values, limit + 1) as DrawerRow[];
    const page = rows.slice(0, limit);
    const last = page[page.length - 1];
    return {
      drawers: page.map(rowToDrawer),
      ...(rows.length > limit && last ? { nextCursor: String(last.rowid) } : {}),
    };
  }

  /**
   * Changes a drawer in place (room, hall, speaker, timestamp, metadata, pin, ...), keeping its
   * id. Content, wing and turnId make the id: to edit them, delete the drawer and file a new one.
   */
  async update(id: string, changes: DrawerUpdate): Promise<Drawer> {
    this.ensureOpen();
    for (const key of ["content", "wing", "turnId"]) {
      if (key in (changes as object)) {
        throw invalidInput(
          key,
          "is part of the drawer's id and cannot be updated; delete the drawer and file the new text instead",
        );
      }
    }
    const patch = this.checkUpdate(changes);
    return this.exclusive(async () => {
      const updated = this.db
        .transaction(() => {
          const row = this.registry.byId(id);
          if (!row) return undefined;
          this.registry.update(row, patch);
          this.registry.flushLexical();
          return this.registry.byId(id) as DrawerRow;
        })
        .immediate();
      if (!updated)
        throw new PalaceError("palace/not-found", `No drawer has id ${id}; find ids with search or list`);
      await this.applyVectors();
      return rowToDrawer(updated);
    });
  }

  /** Pins a drawer: the wake-up offers pinned drawers first. */
  pin(id: string): Promise<Drawer> {
    return this.update(id, { pinned: true });
  }

  unpin(id: string): Promise<Drawer> {
    return this.update(id, { pinned: false });
  }

  /** Removes a drawer; false when there was none with this id. */
  async delete(id: string): Promise<boolean> {
    this.ensureOpen();
    return this.exclusive(async () => {
      const removed = this.db
        .transaction(() => {
          const row = this.registry.byId(id);
          if (row) this.registry.remove(row);
          this.registry.flushLexical();
          return row !== undefined;
        })
        .immediate();
      if (removed) await this.applyVectors();
      return removed;
    });
  }

  /**
   * Whether `content` is already filed: the same text anywhere (by hash), then drawers whose
   * vectors are at least `threshold` similar (cosine), optionally within one wing.
   */
  async checkDuplicate(
    content: string,
    options: { threshold?: number; wing?: string; access?: PalaceAccess } = {},
  ): Promise<DuplicateCheck> {
    this.ensureOpen();
    if (typeof content !== "string" || content.trim() === "")
      throw invalidInput("content", "must be non-empty text");
    if (content.length > this.limits.maxDrawerChars) {
      throw invalidInput(
        "content",
        `has more than maxDrawerChars (${this.limits.maxDrawerChars}) characters`,
      );
    }
    const threshold = options.threshold ?? DUPLICATE_DEFAULT_THRESHOLD;
    if (typeof threshold !== "number" || !(threshold >= 0 && threshold <= 1)) {
      throw invalidInput("threshold", `must be a number from 0 to 1, got ${String(threshold)}`);
    }
    await this.flush();
    const filter = checkFilter({
      ...(options.wing === undefined ? {} : { wing: options.wing }),
      ...(options.access === undefined ? {} : { access: options.access }),
    });
    const { sql, params } = filterSql(filter);
    const exactRows = this.db
      .prepare(
        `SELECT ${DRAWER_COLUMNS} FROM drawers d WHERE d.content_hash = ?${sql ? ` AND ${sql}` : ""} ORDER BY d.rowid`,
      )
      .all(contentHash(content), ...params) as DrawerRow[];
    const matches: DuplicateMatch[] = exactRows.map((row) => ({
      drawer: rowToDrawer(row),
      similarity: 1,
      exact: true,
    }));
    const [vector] = await this.embedding.embed([vectorText({ content, wing: "", room: "" })]);
    if (vector) {
      // Chroma filters by the wing and the grants; the registry check below is the truth.
      const where = filterWhere(filter);
      const near = await this.index.query(
        vector,
        DUPLICATE_CANDIDATES + exactRows.length,
        where === undefined ? {} : { where },
      );
      const exactIds = new Set(exactRows.map((row) => row.id));
      const candidates = near.filter((match) => !exactIds.has(match.id) && 1 - match.distance >= threshold);
      const rows = new Map(
        this.registry.byIds(candidates.map((match) => match.id)).map((row) => [row.id, row]),
      );
      for (const match of candidates) {
        const row = rows.get(match.id);
        const allowed =
          row !== undefined &&
          (filter.wing === undefined || row.wing === filter.wing) &&
          (filter.access === undefined || filter.access.canRead(row.wing, row.room));
        if (row && allowed)
          matches.push({ drawer: rowToDrawer(row), similarity: 1 - match.distance, exact: false });
      }
    }
    return { isDuplicate: matches.length > 0, matches };
  }

  /** Drawer counts by wing, room and hall (only what `access` reads, when given). */
  async taxonomy(options: { access?: PalaceAccess } = {}): Promise<WingCount[]> {
    this.ensureOpen();
    const confined = options.access?.readSql("d");
    const rows = this.db
      .prepare(
        `SELECT wing, room, hall, COUNT(*) AS n FROM drawers d${confined ? ` WHERE ${confined.sql}` : ""} GROUP BY wing, room, hall ORDER BY wing, room, hall`,
      )
      .all(...(confined?.params ?? [])) as { wing: string; room: string; hall: string; n: number }[];
    const wings: WingCount[] = [];
    for (const row of rows) {
      let wing = wings[wings.length - 1];
      if (wing?.wing !== row.wing) {
        wing = { wing: row.wing, count: 0, rooms: [] };
        wings.push(wing);
      }
      let room = wing.rooms[wing.rooms.length - 1];
      if (room?.room !== row.room) {
        room = { room: row.room, count: 0, halls: {} };
        wing.rooms.push(room);
      }
      room.halls[row.hall] = row.n;
      room.count += row.n;
      wing.count += row.n;
    }
    return wings;
  }

  async status(): Promise<PalaceStatus> {
    await this.flush();
    const one = (sql: string) => (this.db.prepare(sql).get() as { n: number }).n;
    return {
      name: this.config.name,
      dir: this.paths.dir,
      embedding: this.config.embedding,
      drawers: one("SELECT COUNT(*) AS n FROM drawers"),
      wings: one("SELECT COUNT(DISTINCT wing) AS n FROM drawers"),
      rooms: one("SELECT COUNT(*) AS n FROM (SELECT DISTINCT wing, room FROM drawers)"),
      sources: one("SELECT COUNT(*) AS n FROM sources"),
      pinned: one("SELECT COUNT(*) AS n FROM drawers WHERE pinned = 1"),
      pendingVectors: one("SELECT COUNT(*) AS n FROM write_log WHERE applied_to_vectors = 0"),
    };
  }

  /**
   * Hybrid (or one-leg) search, filtered by wing, room, hall and time; records the hits' access
   * (one UPDATE) unless `recordAccess: false`.
   */
  async search(
    query: string,
    options: SearchOptions & { recordAccess?: boolean } = {},
  ): Promise<SearchHit[]> {
    await this.flush();
    const { hits, rowids } = await hybridSearch(
      {
        db: this.db,
        registry: this.registry,
        index: this.index,
        embedding: this.embedding,
        limits: this.limits,
      },
      query,
      options,
    );
    this.ensureOpen();
    if (options.recordAccess !== false && rowids.length > 0)
      this.access.record(rowids, new Date().toISOString());
    return hits;
  }

  /** Sets (or clears) the L0 identity in palace.json, keeping keys other modules wrote there. */
  async setIdentity(identity: string | undefined): Promise<void> {
    this.ensureOpen();
    if (
      identity !== undefined &&
      (typeof identity !== "string" || identity.length > this.limits.maxIdentityChars)
    ) {
      throw invalidInput(
        "identity",
        `must be text of at most maxIdentityChars (${this.limits.maxIdentityChars}) characters`,
      );
    }
    await this.exclusive(async () => {
      const { identity: _old, ...current } = await readPalaceConfig(this.paths.dir);
      const next: PalaceConfig = identity === undefined ? current : { ...current, identity };
      await writePalaceConfig(this.paths.dir, next);
      this.config = next;
    });
  }

  /** Applies every write-log row whose vector is not in Chroma yet (done after each write and on open). */
  async syncVectors(): Promise<ApplyResult> {
    this.ensureOpen();
    return this.exclusive(() => this.applyVectors());
  }

  /**
   * Makes the palace consistent again: applies pending vectors, adds vectors Chroma lacks and
   * removes those no drawer has, and rebuilds the FTS index from the registry. With `reembed`,
   * every vector is made again with the embedding the palace was opened with, and palace.json
   * records it.
   */
  async repair(options: RepairOptions = {}): Promise<RepairReport> {
    this.ensureOpen();
    if (this.embeddingChanged && !options.reembed) {
      throw new PalaceError(
        "palace/conflict",
        `This palace was opened with embedding ${this.embedding.id}, not its own ${this.config.embedding}; repair it with reembed: true`,
      );
    }
    return this.exclusive(() => repairOpenPalace(this, options));
  }

  /** Closes the registry and lets go of Chroma (stopping the server if this process started it). Idempotent. */
  async close(): Promise<void> {
    this.closing ??= (async () => {
      this.closed = true;
      await this.writes.catch(() => {});
      try {
        // Deferred vectors now, not at the next open: a palace closed after mining is searchable
        // by whoever opens it next without a replay. If this fails, the write log still has them.
        if (this.vectorsDeferred) await this.applyVectors();
      } catch (error) {
        rethrowIfFatal(error);
      }
      try {
        this.access.flush(true);
      } catch (error) {
        rethrowIfFatal(error);
      }
      this.db.close();
      await this.connection.close();
    })();
    return this.closing;
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  /** @internal records the embedding the vectors are now made with (after a re-embed). */
  async recordEmbedding(): Promise<void> {
    const current = await readPalaceConfig(this.paths.dir);
    this.config = { ...current, embedding: this.embedding.id };
    await writePalaceConfig(this.paths.dir, this.config);
    this.embeddingChanged = false;
  }

  /** @internal re-reads palace.json (after import or another module changed it). */
  async reloadConfig(): Promise<void> {
    this.config = await readPalaceConfig(this.paths.dir);
  }

  /** @internal the registry and vectors, for export, import and layers inside this package. */
  internals(): { db: Database; registry: DrawerRegistry; index: VectorIndex } {
    this.ensureOpen();
    return { db: this.db, registry: this.registry, index: this.index };
  }

  /** @internal runs `body` after every earlier write of this Palace, alone. */
  exclusive<T>(body: () => Promise<T>): Promise<T> {
    const run = this.writes.then(body);
    this.writes = run.catch(() => {});
    return run;
  }

  /** @internal applies pending vectors (deferred ones too); call inside `exclusive`. */
  async applyVectors(): Promise<ApplyResult> {
    if (this.embeddingChanged) return { upserted: 0, deleted: 0 };
    const applied = await applyPendingVectors(this.db, this.registry, this.index, this.embedding);
    this.vectorsDeferred = false;
    return applied;
  }

  private checkDrafts(drafts: readonly DrawerDraft[], field: string): CheckedDraft[] {
    if (!Array.isArray(drafts)) throw invalidInput(field, "must be an array of drafts");
    if (drafts.length > this.limits.maxBatchDrafts) {
      throw new PalaceError(
        "palace/limit",
        `${field} has ${drafts.length} drafts, more than maxBatchDrafts (${this.limits.maxBatchDrafts}); file them in smaller batches`,
      );
    }
    const now = new Date().toISOString();
    return drafts.map((draft, at) => checkDraft(draft, `${field}[${at}]`, this.limits, now));
  }

  private checkUpdate(changes: DrawerUpdate): DrawerChanges {
    if (typeof changes !== "object" || changes === null) throw invalidInput("changes", "must be an object");
    const known = new Set([
      "room",
      "hall",
      "speaker",
      "sessionId",
      "source",
      "position",
      "timestamp",
      "metadata",
      "pinned",
    ]);
    for (const key of Object.keys(changes)) {
      if (!known.has(key))
        throw invalidInput(key, `is not a field update can change; known: ${[...known].join(", ")}`);
    }
    const patch: DrawerChanges = {};
    const text = (key: "room" | "hall", value: unknown) => {
      if (typeof value !== "string" || value.trim() === "" || value.length > this.limits.maxNameChars) {
        throw invalidInput(key, `must be non-empty text of at most ${this.limits.maxNameChars} characters`);
      }
      checkName(value, key, this.limits, true);
      return value;
    };
    const optionalText = (key: string, value: unknown) => {
      if (value === null) return null;
      if (typeof value !== "string" || value.trim() === "" || value.length > this.limits.maxNameChars) {
        throw invalidInput(
          key,
          `must be null or non-empty text of at most ${this.limits.maxNameChars} characters`,
        );
      }
      checkName(value, key, this.limits, true);
      return value;
    };
    if (changes.room !== undefined) patch.room = text("room", changes.room);
    if (changes.hall !== undefined) patch.hall = text("hall", changes.hall);
    if (changes.speaker !== undefined) patch.speaker = optionalText("speaker", changes.speaker);
    if (changes.sessionId !== undefined) patch.sessionId = optionalText("sessionId", changes.sessionId);
    if (changes.source !== undefined) patch.source = optionalText("source", changes.source);
    if (changes.position !== undefined) {
      if (changes.position !== null && !(Number.isInteger(changes.position) && changes.position >= 0)) {
        throw invalidInput("position", "must be null or a non-negative integer");
      }
      patch.position = changes.position;
    }
    if (changes.timestamp !== undefined) {
      const checked = checkDraft(
        { content: "x", wing: "x", room: "x", timestamp: changes.timestamp },
        "changes",
        this.limits,
        "",
      );
      patch.timestamp = checked.timestamp;
      patch.timestampMs = checked.timestampMs;
    }
    if (changes.metadata !== undefined) {
      patch.metadata =
        changes.metadata === null ? null : checkMetadata(changes.metadata, "metadata", this.limits);
    }
    if (changes.pinned !== undefined) {
      if (typeof changes.pinned !== "boolean") throw invalidInput("pinned", "must be true or false");
      patch.pinned = changes.pinned;
    }
    return patch;
  }

  private ensureOpen(): void {
    if (this.closed) throw new ClosedError(`Palace ${this.config.name}`);
  }
}

interface SourceDbRow {
  key: string;
  content_hash: string;
  drawer_count: number;
  mined_at: string;
  origin: string | null;
}

function sourceRecord(row: SourceDbRow): SourceRecord {
  return {
    key: row.key,
    contentHash: row.content_hash,
    drawerCount: row.drawer_count,
    minedAt: row.mined_at,
    ...(row.origin === null ? {} : { origin: row.origin }),
  };
}

/** The fields of a re-mined draft that differ from its stored row (same id, so same content). */
function changedFields(row: DrawerRow, draft: CheckedDraft, timed: boolean): DrawerChanges {
  const changes: DrawerChanges = {};
  if (row.room !== draft.room) changes.room = draft.room;
  if (row.hall !== draft.hall) changes.hall = draft.hall;
  if (row.position !== (draft.position ?? null)) changes.position = draft.position ?? null;
  if (row.speaker !== (draft.speaker ?? null)) changes.speaker = draft.speaker ?? null;
  if (row.session_id !== (draft.sessionId ?? null)) changes.sessionId = draft.sessionId ?? null;
  // A draft without a time was stamped "now": that is no reason to move the stored time.
  if (timed && row.timestamp_ms !== draft.timestampMs) {
    changes.timestamp = draft.timestamp;
    changes.timestampMs = draft.timestampMs;
  }
  const metadata = draft.metadata === undefined ? null : JSON.stringify(draft.metadata);
  if (row.metadata !== metadata) changes.metadata = draft.metadata ?? null;
  return changes;
}
