import { palaceCore } from "../core/palace-core.js";
import { DRAWER_COLUMNS, type DrawerRow, rowToDrawer } from "../db/drawer-row.js";
import type { Drawer } from "../drawers/drawer.js";
import { invalidInput } from "../errors.js";
import type { Palace } from "../palace.js";
import type { SearchHit, SearchOptions } from "../search/hybrid-search.js";
import { ROOM_RECALL_DEFAULT_LIMIT } from "./layer-tuning.js";

/**
 * L2: one room's memories. With a query, a hybrid search inside the room; without, the room's
 * drawers, pinned first, then the most recent.
 */
export async function recallRoom(
  palace: Palace,
  wing: string,
  room: string,
  options: { query?: string; limit?: number } = {},
): Promise<Drawer[]> {
  for (const [field, value] of [
    ["wing", wing],
    ["room", room],
  ] as const) {
    if (typeof value !== "string" || value.trim() === "") throw invalidInput(field, "must be non-empty text");
  }
  const limit = options.limit ?? ROOM_RECALL_DEFAULT_LIMIT;
  if (options.query !== undefined) return palace.search(options.query, { wing, room, k: limit });
  if (!Number.isInteger(limit) || limit < 1 || limit > palace.limits.maxListDrawers) {
    throw invalidInput(
      "limit",
      `must be an integer from 1 to ${palace.limits.maxListDrawers}, got ${String(limit)}`,
    );
  }
  const rows = palaceCore(palace)
    .db.prepare(
      `SELECT ${DRAWER_COLUMNS} FROM drawers d WHERE d.wing = ? AND d.room = ? ORDER BY d.pinned DESC, d.timestamp_ms DESC, d.rowid DESC LIMIT ?`,
    )
    .all(wing, room, limit) as DrawerRow[];
  return rows.map(rowToDrawer);
}

/** L3: deep search over the whole palace (or a scope of it); the palace's hybrid search. */
export function deepSearch(
  palace: Palace,
  query: string,
  options: SearchOptions & { recordAccess?: boolean } = {},
): Promise<SearchHit[]> {
  return palace.search(query, options);
}
