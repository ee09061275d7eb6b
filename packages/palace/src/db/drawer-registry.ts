import { contentHash } from "../drawers/drawer-id.js";
import { checkExportLine } from "../drawers/export-line.js";
import type { CheckedDraft } from "../drawers/validate-draft.js";
import { DEFAULT_PALACE_LIMITS, type PalaceLimits } from "../limits.js";
import { DRAWER_COLUMNS, type DrawerRow, rowToDraft, rowToDrawer } from "./drawer-row.js";
import type { LexicalIndex } from "./lexical-index.js";
import { LEXICAL_CONTEXT_RADIUS, type LexicalNeighbours, lexicalRow } from "./lexical-table.js";
import { openLexicalIndex } from "./open-lexical-index.js";
import type { SqlDatabase, SqlStatement } from "./sql/sql-database.js";

export type WriteOp = "upsert" | "delete";

/** Fields of a stored drawer that can change without changing its id. */
export interface DrawerChanges {
  room?: string;
  hall?: string;
  source?: string | null;
  position?: number | null;
  speaker?: string | null;
  sessionId?: string | null;
  timestamp?: string;
  timestampMs?: number;
  metadata?: Record<string, string | number | boolean> | null;
  pinned?: boolean;
}

/**
 * Sources with more drawers to re-index than this are read whole instead of drawer by drawer
 * (a few queries each). On PostgreSQL each query is a round trip, so a source is read whole sooner.
 */
const WHOLE_SOURCE_THRESHOLD = { sqlite: 32, postgres: 2 } as const;

/** Rowids a PostgreSQL registry takes from the sequence at a time (unused ones are only gaps). */
const ROWIDS_AHEAD = 256;

/**
 * The SQL of the drawer registry: the `drawers` rows, their FTS5 rows and the write log, always
 * changed together. Callers run these inside one transaction; nothing here touches Chroma.
 *
 * A drawer's FTS row includes the drawers around it in its source (`LEXICAL_CONTEXT_RADIUS` on
 * each side), so filing, removing or moving one changes its neighbours' rows too. Writes only
 * note what changed; `flushLexical()`, called before the transaction commits, rewrites every
 * affected FTS row once from the stored drawers.
 */
export class DrawerRegistry {
  /** The BM25 side, kept in step with the rows by `flushLexical`. */
  readonly lexical: LexicalIndex;
  private readonly statements: {
    byId: SqlStatement<[string], DrawerRow>;
    byIds: SqlStatement<[string], DrawerRow>;
    byRowids: SqlStatement<[string], DrawerRow>;
    exists: SqlStatement<[string], { one: number }>;
    idsOfSource: SqlStatement<[string], { id: string }>;
    before: SqlStatement<[string, number, number], DrawerRow>;
    after: SqlStatement<[string, number, number], DrawerRow>;
    ofSource: SqlStatement<[string], DrawerRow>;
    at: SqlStatement<[string, number], DrawerRow>;
    insert: SqlStatement<[Record<string, unknown>], { rowid: number }>;
    insertWithRowid: SqlStatement<[Record<string, unknown>]>;
    /** PostgreSQL only. */
    nextRowids: SqlStatement<[number], { rowid: number }> | undefined;
    remove: SqlStatement<[number]>;
    log: SqlStatement<[WriteOp, string]>;
    link: SqlStatement<[string, number, number | null]>;
    unlink: SqlStatement<[string, number]>;
    linksOfSource: SqlStatement<[string], { drawer_rowid: number; position: number | null }>;
    holders: SqlStatement<[number], { source_key: string; position: number | null }>;
    filedDirectly: SqlStatement<[number], { filed_directly: number }>;
    markDirect: SqlStatement<[number]>;
  };

  /** `limits.maxImportLineBytes` bounds what an update may grow a drawer to (see `checkExportLine`). */
  constructor(
    readonly db: SqlDatabase,
    readonly limits: Pick<PalaceLimits, "maxImportLineBytes"> = DEFAULT_PALACE_LIMITS,
  ) {
    this.lexical = openLexicalIndex(db);
    this.statements = {
      byId: db.prepare(`SELECT ${DRAWER_COLUMNS} FROM drawers d WHERE d.id = ?`),
      byIds: db.prepare(
        `SELECT ${DRAWER_COLUMNS} FROM drawers d WHERE d.id IN (${db.dialect.jsonTexts("?")})`,
      ),
      byRowids: db.prepare(
        `SELECT ${DRAWER_COLUMNS} FROM drawers d WHERE d.rowid IN (${db.dialect.jsonIntegers("?")})`,
      ),
      exists: db.prepare("SELECT 1 AS one FROM drawers WHERE id = ?"),
      idsOfSource: db.prepare("SELECT id FROM drawers WHERE source = ? ORDER BY position, rowid"),
      before: db.prepare(
        `SELECT ${DRAWER_COLUMNS} FROM drawers d WHERE d.source = ? AND d.position < ? ORDER BY d.position DESC, d.rowid DESC LIMIT ?`,
      ),
      after: db.prepare(
        `SELECT ${DRAWER_COLUMNS} FROM drawers d WHERE d.source = ? AND d.position > ? ORDER BY d.position, d.rowid LIMIT ?`,
      ),
      at: db.prepare(`SELECT ${DRAWER_COLUMNS} FROM drawers d WHERE d.source = ? AND d.position = ?`),
      ofSource: db.prepare(
        `SELECT ${DRAWER_COLUMNS} FROM drawers d WHERE d.source = ? AND d.position IS NOT NULL ORDER BY d.position, d.rowid`,
      ),
      insert: db.prepare(
        `INSERT INTO drawers (id, content, content_hash, wing, room, hall, source, position, speaker, turn_id, session_id, timestamp, timestamp_ms, filed_at, metadata, access_count, last_accessed, pinned, filed_directly)
         VALUES (@id, @content, @content_hash, @wing, @room, @hall, @source, @position, @speaker, @turn_id, @session_id, @timestamp, @timestamp_ms, @filed_at, @metadata, @access_count, @last_accessed, @pinned, @filed_directly)
         RETURNING rowid`,
      ),
      insertWithRowid: db.prepare(
        `INSERT INTO drawers (rowid, id, content, content_hash, wing, room, hall, source, position, speaker, turn_id, session_id, timestamp, timestamp_ms, filed_at, metadata, access_count, last_accessed, pinned, filed_directly)
         VALUES (@rowid, @id, @content, @content_hash, @wing, @room, @hall, @source, @position, @speaker, @turn_id, @session_id, @timestamp, @timestamp_ms, @filed_at, @metadata, @access_count, @last_accessed, @pinned, @filed_directly)`,
      ),
      // PostgreSQL hands out rowids ahead, many per round trip, so an insert need not wait for one.
      nextRowids:
        db.dialect.name === "postgres"
          ? db.prepare(
              "SELECT nextval(pg_get_serial_sequence('drawers', 'rowid')) AS rowid FROM generate_series(1, ?)",
            )
          : undefined,
      remove: db.prepare("DELETE FROM drawers WHERE rowid = ?"),
      log: db.prepare("INSERT INTO write_log (op, drawer_id) VALUES (?, ?)"),
      link: db.prepare(
        "INSERT INTO drawer_sources (source_key, drawer_rowid, position) VALUES (?, ?, ?) ON CONFLICT (source_key, drawer_rowid) DO UPDATE SET position = excluded.position",
      ),
      unlink: db.prepare("DELETE FROM drawer_sources WHERE source_key = ? AND drawer_rowid = ?"),
      linksOfSource: db.prepare("SELECT drawer_rowid, position FROM drawer_sources WHERE source_key = ?"),
      holders: db.prepare(
        "SELECT source_key, position FROM drawer_sources WHERE drawer_rowid = ? ORDER BY source_key",
      ),
      filedDirectly: db.prepare("SELECT filed_directly FROM drawers WHERE rowid = ?"),
      markDirect: db.prepare("UPDATE drawers SET filed_directly = 1 WHERE rowid = ?"),
    };
  }

  byId(id: string): DrawerRow | undefined {
    return this.statements.byId.get(id);
  }

  byIds(ids: readonly string[]): DrawerRow[] {
    return ids.length === 0 ? [] : this.statements.byIds.all(JSON.stringify(ids));
  }

  byRowids(rowids: readonly number[]): DrawerRow[] {
    return rowids.length === 0 ? [] : this.statements.byRowids.all(JSON.stringify(rowids));
  }

  exists(id: string): boolean {
    return this.statements.exists.get(id) !== undefined;
  }

  /** Ids filed from `source`, in position order. */
  idsOfSource(source: string): string[] {
    return this.statements.idsOfSource.all(source).map((row) => row.id);
  }

  /** Rowids of the drawers `source` holds (its own and those it shares with other sources). */
  heldBy(source: string): number[] {
    return this.statements.linksOfSource.all(source).map((row) => row.drawer_rowid);
  }

  /** The sources holding a drawer, by key, with the drawer's position in each. */
  holders(rowid: number): { source: string; position: number | null }[] {
    return this.statements.holders
      .all(rowid)
      .map((row) => ({ source: row.source_key, position: row.position }));
  }

  /** Whether the drawer was filed directly (`file` without a source), which keeps it whatever sources do. */
  filedDirectly(rowid: number): boolean {
    return this.statements.filedDirectly.get(rowid)?.filed_directly === 1;
  }

  /**
   * Records that `source` holds an already filed drawer (at `position`); with no source, that it
   * was filed directly. Either keeps it until every holder lets go.
   */
  hold(row: DrawerRow, source: string | undefined, position: number | undefined): void {
    if (source === undefined) this.statements.markDirect.run(row.rowid);
    else this.statements.link.run(source, row.rowid, position ?? null);
  }

  /**
   * `source` no longer holds the drawer: it is removed when nothing else holds it (returns true);
   * otherwise, if it was that source's own drawer, it moves to the first other holder (or, held
   * only because it was filed directly, to no source).
   */
  release(row: DrawerRow, source: string): boolean {
    this.statements.unlink.run(source, row.rowid);
    const holders = this.holders(row.rowid);
    const direct = this.filedDirectly(row.rowid);
    if (holders.length === 0 && !direct) {
      this.remove(row);
      return true;
    }
    if (row.source === source) {
      const next = holders[0];
      this.update(
        row,
        next ? { source: next.source, position: next.position } : { source: null, position: null },
      );
    }
    return false;
  }

  /** FTS rows to rewrite at `flushLexical` (rowids), and places in sources whose neighbours changed. */
  private readonly dirty = new Set<number>();
  private readonly touched: { source: string; position: number }[] = [];

  /** Files a new drawer: its row, its FTS row and an upsert in the write log. */
  insert(
    draft: CheckedDraft,
    id: string,
    filedAt: string,
    bookkeeping: { accessCount?: number; lastAccessed?: string; pinned?: boolean } = {},
  ): number {
    const values = {
      id,
      content: draft.content,
      content_hash: contentHash(draft.content),
      wing: draft.wing,
      room: draft.room,
      hall: draft.hall,
      source: draft.source ?? null,
      position: draft.position ?? null,
      speaker: draft.speaker ?? null,
      turn_id: draft.turnId ?? null,
      session_id: draft.sessionId ?? null,
      timestamp: draft.timestamp,
      timestamp_ms: draft.timestampMs,
      filed_at: filedAt,
      metadata: draft.metadata === undefined ? null : JSON.stringify(draft.metadata),
      access_count: bookkeeping.accessCount ?? 0,
      last_accessed: bookkeeping.lastAccessed ?? null,
      pinned: bookkeeping.pinned ? 1 : 0,
      // A drawer without a source is held by the palace itself; one with a source, by that source.
      filed_directly: draft.source === undefined ? 1 : 0,
    };
    const rowid = this.insertRow(values);
    if (draft.source !== undefined) this.statements.link.run(draft.source, rowid, draft.position ?? null);
    this.dirty.add(rowid);
    this.touch(draft.source, draft.position);
    this.log("upsert", id);
    return rowid;
  }

  /** Rowids handed out ahead on PostgreSQL (see `nextRowids`), used in order. */
  private readonly spareRowids: number[] = [];

  /** Inserts a drawers row; returns its rowid. */
  private insertRow(values: Record<string, unknown>): number {
    const { nextRowids } = this.statements;
    if (!nextRowids) return (this.statements.insert.get(values) as { rowid: number }).rowid;
    if (this.spareRowids.length === 0) {
      this.spareRowids.push(...nextRowids.all(ROWIDS_AHEAD).map((row) => row.rowid));
    }
    const rowid = this.spareRowids.shift() as number;
    this.statements.insertWithRowid.run({ rowid, ...values });
    return rowid;
  }

  /** Removes a drawer: its row, its FTS row, its links to sources (a trigger), and a delete in the write log. */
  remove(row: DrawerRow): void {
    this.statements.remove.run(row.rowid);
    this.lexical.remove(row.rowid);
    this.dirty.delete(row.rowid);
    this.touch(row.source ?? undefined, row.position ?? undefined);
    this.log("delete", row.id);
  }

  /**
   * Changes fields that keep the id. The FTS row is rewritten (the speaker is indexed) and an
   * upsert logged so the vector's metadata follows; a change to `pinned` alone touches neither.
   */
  update(row: DrawerRow, changes: DrawerChanges): void {
    const assignments: string[] = [];
    const values: Record<string, unknown> = { rowid: row.rowid };
    const set = (column: string, value: unknown) => {
      assignments.push(`${column} = @${column}`);
      values[column] = value;
    };
    if (changes.room !== undefined) set("room", changes.room);
    if (changes.hall !== undefined) set("hall", changes.hall);
    if (changes.source !== undefined) set("source", changes.source);
    if (changes.position !== undefined) set("position", changes.position);
    if (changes.speaker !== undefined) set("speaker", changes.speaker);
    if (changes.sessionId !== undefined) set("session_id", changes.sessionId);
    if (changes.timestamp !== undefined) set("timestamp", changes.timestamp);
    if (changes.timestampMs !== undefined) set("timestamp_ms", changes.timestampMs);
    if (changes.metadata !== undefined)
      set("metadata", changes.metadata === null ? null : JSON.stringify(changes.metadata));
    if (changes.pinned !== undefined) set("pinned", changes.pinned ? 1 : 0);
    if (assignments.length === 0) return;
    // Every write path passes here: the changed drawer must still fit an import's line.
    const before = rowToDrawer(row);
    checkExportLine(
      {
        ...before,
        ...(changes.room === undefined ? {} : { room: changes.room }),
        ...(changes.hall === undefined ? {} : { hall: changes.hall }),
        ...(changes.source === undefined ? {} : { source: changes.source ?? undefined }),
        ...(changes.speaker === undefined ? {} : { speaker: changes.speaker ?? undefined }),
        ...(changes.sessionId === undefined ? {} : { sessionId: changes.sessionId ?? undefined }),
        ...(changes.metadata === undefined ? {} : { metadata: changes.metadata ?? undefined }),
      },
      `drawer ${row.id}`,
      this.limits,
    );
    this.db.prepare(`UPDATE drawers SET ${assignments.join(", ")} WHERE rowid = @rowid`).run(values);
    this.followSource(row, changes);
    const indexed = Object.keys(changes).some((key) => key !== "pinned" && key !== "metadata");
    if (!indexed) return;
    const updated = this.byId(row.id) as DrawerRow;
    this.dirty.add(row.rowid);
    // Moving a drawer changes the rows around its old place and around its new one.
    this.touch(row.source ?? undefined, row.position ?? undefined);
    this.touch(updated.source ?? undefined, updated.position ?? undefined);
    this.log("upsert", row.id);
  }

  /**
   * Keeps the drawer's link to its own source in step with `source` and `position`: a drawer
   * moved to another source is held by that one instead, one moved to no source is held directly.
   */
  private followSource(row: DrawerRow, changes: DrawerChanges): void {
    const source = changes.source === undefined ? row.source : changes.source;
    const position = changes.position === undefined ? row.position : changes.position;
    if (source === row.source && position === row.position) return;
    if (row.source !== null && source !== row.source) this.statements.unlink.run(row.source, row.rowid);
    if (source === null) this.statements.markDirect.run(row.rowid);
    else this.statements.link.run(source, row.rowid, position);
  }

  log(op: WriteOp, id: string): void {
    this.statements.log.run(op, id);
  }

  /**
   * Rewrites the FTS rows of every drawer filed, moved or changed since the last flush, and of
   * the drawers within `LEXICAL_CONTEXT_RADIUS` of each place that changed. Call inside the
   * writing transaction, before it commits.
   */
  flushLexical(): number {
    const touchedBySource = new Map<string, number[]>();
    for (const { source, position } of this.touched) {
      const list = touchedBySource.get(source);
      if (list) list.push(position);
      else touchedBySource.set(source, [position]);
    }
    this.touched.length = 0;
    const dirtyRows = this.byRowids([...this.dirty]);
    this.dirty.clear();
    const dirtyBySource = new Map<string, DrawerRow[]>();
    let written = 0;
    for (const row of dirtyRows) {
      if (row.source === null || row.position === null) {
        this.rewriteLexical(row, {});
        written++;
        continue;
      }
      const list = dirtyBySource.get(row.source);
      if (list) list.push(row);
      else dirtyBySource.set(row.source, [row]);
    }
    for (const source of new Set([...touchedBySource.keys(), ...dirtyBySource.keys()])) {
      const places = touchedBySource.get(source) ?? [];
      const rows = dirtyBySource.get(source) ?? [];
      if (places.length + rows.length > WHOLE_SOURCE_THRESHOLD[this.db.dialect.name]) {
        written += this.flushWholeSource(source, places, rows);
        continue;
      }
      const affected = new Map(rows.map((row) => [row.rowid, row]));
      for (const position of places) {
        for (const statement of [this.statements.before, this.statements.after]) {
          for (const row of statement.all(source, position, LEXICAL_CONTEXT_RADIUS))
            affected.set(row.rowid, row);
        }
        for (const row of this.statements.at.all(source, position)) affected.set(row.rowid, row);
      }
      for (const row of affected.values()) {
        const position = row.position as number;
        const sameWing = (other: DrawerRow) => other.wing === row.wing;
        this.rewriteLexical(row, {
          before: this.statements.before
            .all(source, position, LEXICAL_CONTEXT_RADIUS)
            .filter(sameWing)
            .map(rowToDraft),
          after: this.statements.after
            .all(source, position, LEXICAL_CONTEXT_RADIUS)
            .filter(sameWing)
            .map(rowToDraft),
        });
        written++;
      }
    }
    this.lexical.settle();
    return written;
  }

  /** `flushLexical` for a source with many changes: read it once, work out the affected rows in memory. */
  private flushWholeSource(source: string, places: readonly number[], dirty: readonly DrawerRow[]): number {
    const ordered = this.statements.ofSource.all(source);
    const wanted = new Set(dirty.map((row) => row.rowid));
    for (const position of places) {
      // The first drawer at or after the changed place; the rows within the radius around it.
      let low = 0;
      let high = ordered.length;
      while (low < high) {
        const middle = (low + high) >> 1;
        if (((ordered[middle] as DrawerRow).position as number) < position) low = middle + 1;
        else high = middle;
      }
      const last = Math.min(ordered.length - 1, low + LEXICAL_CONTEXT_RADIUS);
      for (let at = Math.max(0, low - LEXICAL_CONTEXT_RADIUS); at <= last; at++)
        wanted.add((ordered[at] as DrawerRow).rowid);
    }
    this.writeSource(ordered, (row) => wanted.has(row.rowid));
    return wanted.size;
  }

  /**
   * Refills the FTS table from the registry, each drawer with the drawers around it in its
   * source. Runs inside the caller's transaction.
   */
  rebuildLexical(): number {
    this.lexical.clear();
    this.dirty.clear();
    this.touched.length = 0;
    const all = this.db
      .prepare(`SELECT ${DRAWER_COLUMNS} FROM drawers d ORDER BY d.source, d.position, d.rowid`)
      .all() as DrawerRow[];
    let count = 0;
    let start = 0;
    while (start < all.length) {
      const source = (all[start] as DrawerRow).source;
      let end = start + 1;
      while (end < all.length && (all[end] as DrawerRow).source === source) end++;
      const group = all.slice(start, end);
      if (source === null) {
        for (const row of group) this.insertLexical(row, {});
      } else {
        for (const row of group.filter((candidate) => candidate.position === null))
          this.insertLexical(row, {});
        this.writeSource(
          group.filter((candidate) => candidate.position !== null),
          () => true,
          (row, neighbours) => this.insertLexical(row, neighbours),
        );
      }
      count += group.length;
      start = end;
    }
    this.lexical.settle();
    return count;
  }

  /** Writes the rows `wanted` picks out of one source's positioned drawers (in position order). */
  private writeSource(
    ordered: readonly DrawerRow[],
    wanted: (row: DrawerRow) => boolean,
    write: (row: DrawerRow, neighbours: LexicalNeighbours) => void = (row, neighbours) =>
      this.rewriteLexical(row, neighbours),
  ): void {
    const drafts = ordered.map(rowToDraft);
    ordered.forEach((row, at) => {
      if (!wanted(row)) return;
      // A source name may be used in more than one wing: a drawer's context is its own wing's.
      const sameWing = (draft: { wing: string }) => draft.wing === row.wing;
      write(row, {
        before: drafts
          .slice(Math.max(0, at - LEXICAL_CONTEXT_RADIUS), at)
          .reverse()
          .filter(sameWing),
        after: drafts.slice(at + 1, at + 1 + LEXICAL_CONTEXT_RADIUS).filter(sameWing),
      });
    });
  }

  private rewriteLexical(row: DrawerRow, neighbours: LexicalNeighbours): void {
    this.lexical.remove(row.rowid);
    this.insertLexical(row, neighbours);
  }

  private insertLexical(row: DrawerRow, neighbours: LexicalNeighbours): void {
    this.lexical.insert(row.rowid, lexicalRow(rowToDraft(row), neighbours));
  }

  private touch(source: string | undefined, position: number | undefined): void {
    if (source !== undefined && position !== undefined) this.touched.push({ source, position });
  }
}
