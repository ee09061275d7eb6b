import type { Drawer, DrawerMetadata } from "../drawers/drawer.js";
import type { DrawerFilter } from "../search/hybrid-search.js";

// What the methods of a `Palace` take and give, besides drawers.

export interface FileResult {
  id: string;
  /** False when a drawer with this id was already filed (nothing changed). */
  created: boolean;
}

/** What `update` may change; content, wing and turnId make the id, so editing them is delete + file. */
export interface DrawerUpdate {
  room?: string;
  hall?: string;
  speaker?: string | null;
  sessionId?: string | null;
  source?: string | null;
  position?: number | null;
  timestamp?: string;
  metadata?: DrawerMetadata | null;
  pinned?: boolean;
}

export interface ListOptions extends DrawerFilter {
  source?: string;
  pinned?: boolean;
  /** At most `maxListDrawers`; default 100. */
  limit?: number;
  /** `nextCursor` of the previous page. */
  cursor?: string;
}

export interface DrawerPage {
  drawers: Drawer[];
  /** Pass as `cursor` for the next page; absent on the last one. */
  nextCursor?: string;
}

export interface DuplicateMatch {
  drawer: Drawer;
  /** 1 for the same text; cosine similarity of the vectors otherwise. */
  similarity: number;
  exact: boolean;
}

export interface DuplicateCheck {
  isDuplicate: boolean;
  /** Exact matches first, then near ones at or above the threshold, most similar first. */
  matches: DuplicateMatch[];
}

export interface RoomCount {
  room: string;
  count: number;
  halls: Record<string, number>;
}

export interface WingCount {
  wing: string;
  count: number;
  rooms: RoomCount[];
}

export interface PalaceStatus {
  name: string;
  dir: string;
  embedding: string;
  drawers: number;
  wings: number;
  rooms: number;
  sources: number;
  pinned: number;
  /** Write-log rows whose vectors are not in Chroma yet (0 when in sync). */
  pendingVectors: number;
}
