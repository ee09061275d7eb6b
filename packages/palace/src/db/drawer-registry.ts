import type { Database, Statement } from "better-sqlite3";
import type { DrawerDraft } from "../drawers/drawer.js";
import { contentHash } from "../drawers/drawer-id.js";
import type { Neighbours } from "../drawers/neighbours.js";
import type { CheckedDraft } from "../drawers/validate-draft.js";
import { LEXICAL_COLUMNS, lexicalRow } from "../search/lexical-index.js";
import { DRAWER_COLUMNS, type DrawerRow, rowToDraft } from "./drawer-row.js";
import { LEXICAL_TABLE } from "./schema.js";

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
 * The SQL of the drawer registry: the `drawers` rows, their FTS5 rows and the write log, always
 * changed together. Callers run these inside one transaction; nothing here touches Chroma.
 */
export class DrawerRegistry {
  private readonly statements: {
    byId: Statement<[string], DrawerRow>;
    byIds: Statement<[string], DrawerRow>;
    byRowids: Statement<[string], DrawerRow>;
    exists: Statement<[string], { one: number }>;
    idsOfSource: Statement<[string], { id: string }>;
    previous: Statement<[string, number], DrawerRow>;
    next: Statement<[string, number], DrawerRow>;
    insert: Statement;
    remove: Statement<[number]>;
    lexicalInsert: Statement;
    lexicalDelete: Statement<[number]>;
    log: Statement<[WriteOp, string]>;
  };

  constructor(readonly db: Database) {
    const placeholders = LEXICAL_COLUMNS.map(() => "?").join(", ");
    this.statements = {
      byId: db.prepare(`SELECT ${DRAWER_COLUMNS} FROM drawers d WHERE d.id = ?`),
      byIds: db.prepare(
        `SELECT ${DRAWER_COLUMNS} FROM drawers d WHERE d.id IN (SELECT value FROM json_each(?))`,
      ),
      byRowids: db.prepare(
        `SELECT ${DRAWER_COLUMNS} FROM drawers d WHERE d.rowid IN (SELECT value FROM json_each(?))`,
      ),
      exists: db.prepare("SELECT 1 AS one FROM drawers WHERE id = ?"),
      idsOfSource: db.prepare("SELECT id FROM drawers WHERE source = ? ORDER BY position, rowid"),
      previous: db.prepare(
        `SELECT ${DRAWER_COLUMNS} FROM drawers d WHERE d.source = ? AND d.position < ? ORDER BY d.position DESC LIMIT 1`,
      ),
      next: db.prepare(
        `SELECT ${DRAWER_COLUMNS} FROM drawers d WHERE d.source = ? AND d.position > ? ORDER BY d.position LIMIT 1`,
      ),
      insert: db.prepare(
        `INSERT INTO drawers (id, content, content_hash, wing, room, hall, source, position, speaker, turn_id, session_id, timestamp, timestamp_ms, filed_at, metadata, access_count, last_accessed, pinned)
         VALUES (@id, @content, @content_hash, @wing, @room, @hall, @source, @position, @speaker, @turn_id, @session_id, @timestamp, @timestamp_ms, @filed_at, @metadata, @access_count, @last_accessed, @pinned)`,
      ),
      remove: db.prepare("DELETE FROM drawers WHERE rowid = ?"),
      lexicalInsert: db.prepare(
        `INSERT INTO ${LEXICAL_TABLE} (rowid, ${LEXICAL_COLUMNS.join(", ")}) VALUES (?, ${placeholders})`,
      ),
      lexicalDelete: db.prepare(`DELETE FROM ${LEXICAL_TABLE} WHERE rowid = ?`),
      log: db.prepare("INSERT INTO write_log (op, drawer_id) VALUES (?, ?)"),
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

  /** The drawers before and after a position in a source, as already stored. */
  storedNeighbours(source: string, position: number): Neighbours<DrawerDraft> {
    const previous = this.statements.previous.get(source, position);
    const next = this.statements.next.get(source, position);
    return {
      ...(previous ? { previous: rowToDraft(previous) } : {}),
      ...(next ? { next: rowToDraft(next) } : {}),
    };
  }

  /** Files a new drawer: its row, its FTS row and an upsert in the write log. */
  insert(
    draft: CheckedDraft,
    id: string,
    filedAt: string,
    neighbours: Neighbours<DrawerDraft>,
    bookkeeping: { accessCount?: number; lastAccessed?: string; pinned?: boolean } = {},
  ): void {
    const { lastInsertRowid } = this.statements.insert.run({
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
    });
    this.writeLexical(Number(lastInsertRowid), draft, neighbours);
    this.log("upsert", id);
  }

  /** Removes a drawer: its row, its FTS row, and a delete in the write log. */
  remove(row: DrawerRow): void {
    this.statements.remove.run(row.rowid);
    this.statements.lexicalDelete.run(row.rowid);
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
    this.db.prepare(`UPDATE drawers SET ${assignments.join(", ")} WHERE rowid = @rowid`).run(values);
    const indexed = Object.keys(changes).some((key) => key !== "pinned" && key !== "metadata");
    if (!indexed) return;
    const updated = this.byId(row.id) as DrawerRow;
    const draft = rowToDraft(updated);
    this.statements.lexicalDelete.run(row.rowid);
    this.writeLexical(
      row.rowid,
      draft,
      draft.source !== undefined && draft.position !== undefined
        ? this.storedNeighbours(draft.source, draft.position)
        : {},
    );
    this.log("upsert", row.id);
  }

  log(op: WriteOp, id: string): void {
    this.statements.log.run(op, id);
  }

  writeLexical(rowid: number, draft: DrawerDraft, neighbours: Neighbours<DrawerDraft>): void {
    const columns = lexicalRow(draft, neighbours);
    this.statements.lexicalInsert.run(rowid, ...LEXICAL_COLUMNS.map((column) => columns[column]));
  }

  /**
   * Refills the FTS table from the registry, each drawer with its neighbours in its source.
   * Runs inside the caller's transaction.
   */
  rebuildLexical(): number {
    this.db.exec(`DELETE FROM ${LEXICAL_TABLE}`);
    const rows = this.db
      .prepare(`SELECT ${DRAWER_COLUMNS} FROM drawers d ORDER BY d.source, d.position, d.rowid`)
      .iterate() as IterableIterator<DrawerRow>;
    let count = 0;
    let previous: { row: DrawerRow; draft: DrawerDraft } | undefined;
    let pending: { row: DrawerRow; draft: DrawerDraft; before?: DrawerDraft } | undefined;
    const flush = (next: DrawerDraft | undefined) => {
      if (!pending) return;
      this.writeLexical(pending.row.rowid, pending.draft, {
        ...(pending.before ? { previous: pending.before } : {}),
        ...(next ? { next } : {}),
      });
      count++;
    };
    // Rows come from an iterator over the same table the FTS writes don't touch: collect first.
    const all = [...rows];
    for (const row of all) {
      const draft = rowToDraft(row);
      const sameSource = row.source !== null && previous?.row.source === row.source;
      flush(sameSource ? draft : undefined);
      pending = { row, draft, ...(sameSource && previous ? { before: previous.draft } : {}) };
      previous = { row, draft };
    }
    flush(undefined);
    return count;
  }
}
