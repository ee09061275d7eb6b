import type { Drawer, DrawerDraft, DrawerMetadata } from "../drawers/drawer.js";

/** A `drawers` row as better-sqlite3 returns it. */
export interface DrawerRow {
  rowid: number;
  id: string;
  content: string;
  content_hash: string;
  wing: string;
  room: string;
  hall: string;
  source: string | null;
  position: number | null;
  speaker: string | null;
  turn_id: string | null;
  session_id: string | null;
  timestamp: string;
  timestamp_ms: number;
  filed_at: string;
  metadata: string | null;
  access_count: number;
  last_accessed: string | null;
  pinned: number;
}

/** The columns of `DrawerRow`, for SELECTs that must name them (joins). */
export const DRAWER_COLUMNS =
  "d.rowid AS rowid, d.id, d.content, d.content_hash, d.wing, d.room, d.hall, d.source, d.position, d.speaker, d.turn_id, d.session_id, d.timestamp, d.timestamp_ms, d.filed_at, d.metadata, d.access_count, d.last_accessed, d.pinned";

export function rowToDrawer(row: DrawerRow): Drawer {
  const drawer: Drawer = {
    id: row.id,
    content: row.content,
    wing: row.wing,
    room: row.room,
    hall: row.hall,
    timestamp: row.timestamp,
    filedAt: row.filed_at,
    contentHash: row.content_hash,
    pinned: row.pinned === 1,
    accessCount: row.access_count,
  };
  if (row.source !== null) drawer.source = row.source;
  if (row.position !== null) drawer.position = row.position;
  if (row.speaker !== null) drawer.speaker = row.speaker;
  if (row.turn_id !== null) drawer.turnId = row.turn_id;
  if (row.session_id !== null) drawer.sessionId = row.session_id;
  if (row.metadata !== null) drawer.metadata = JSON.parse(row.metadata) as DrawerMetadata;
  if (row.last_accessed !== null) drawer.lastAccessed = row.last_accessed;
  return drawer;
}

/** The draft a row was filed from (what the lexical and vector sides index). */
export function rowToDraft(row: DrawerRow): DrawerDraft {
  const {
    id: _id,
    filedAt: _filed,
    contentHash: _hash,
    pinned: _pinned,
    accessCount: _count,
    lastAccessed: _last,
    ...draft
  } = rowToDrawer(row);
  return draft;
}
