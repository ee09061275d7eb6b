import type { PalaceAccess } from "../access/palace-access.js";
import { DRAWER_COLUMNS, type DrawerRow, rowToDrawer } from "../db/drawer-row.js";
import { contentHash } from "../drawers/drawer-id.js";
import { invalidInput } from "../errors.js";
import {
  checkFilter,
  filterSql,
  filterWhere,
  hybridSearch,
  type SearchHit,
  type SearchOptions,
} from "../search/hybrid-search.js";
import { DUPLICATE_CANDIDATES, DUPLICATE_DEFAULT_THRESHOLD } from "../tuning.js";
import { vectorText } from "../vectors/vector-text.js";
import type { PalaceCore } from "./palace-core.js";
import type {
  DrawerPage,
  DuplicateCheck,
  DuplicateMatch,
  ListOptions,
  PalaceStatus,
  WingCount,
} from "./palace-types.js";

// What the palace holds, read many drawers at a time: listing, search, duplicate checks, counts.

/** Drawers in filing order, filtered, a page at a time. */
export async function listDrawers(core: PalaceCore, options: ListOptions): Promise<DrawerPage> {
  core.ensureOpen();
  const { maxListDrawers } = core.limits;
  const limit = options.limit ?? 100;
  if (!Number.isInteger(limit) || limit < 1 || limit > maxListDrawers) {
    throw invalidInput("limit", `must be an integer from 1 to ${maxListDrawers}, got ${String(limit)}`);
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
  const rows = core.db
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
 * Whether `content` is already filed: the same text anywhere (by hash), then drawers whose
 * vectors are at least `threshold` similar (cosine), optionally within one wing.
 */
export async function checkDuplicate(
  core: PalaceCore,
  content: string,
  options: { threshold?: number; wing?: string; access?: PalaceAccess },
): Promise<DuplicateCheck> {
  core.ensureOpen();
  if (typeof content !== "string" || content.trim() === "")
    throw invalidInput("content", "must be non-empty text");
  if (content.length > core.limits.maxDrawerChars) {
    throw invalidInput("content", `has more than maxDrawerChars (${core.limits.maxDrawerChars}) characters`);
  }
  const threshold = options.threshold ?? DUPLICATE_DEFAULT_THRESHOLD;
  if (typeof threshold !== "number" || !(threshold >= 0 && threshold <= 1)) {
    throw invalidInput("threshold", `must be a number from 0 to 1, got ${String(threshold)}`);
  }
  await core.flush();
  const filter = checkFilter({
    ...(options.wing === undefined ? {} : { wing: options.wing }),
    ...(options.access === undefined ? {} : { access: options.access }),
  });
  const { sql, params } = filterSql(filter);
  const exactRows = core.db
    .prepare(
      `SELECT ${DRAWER_COLUMNS} FROM drawers d WHERE d.content_hash = ?${sql ? ` AND ${sql}` : ""} ORDER BY d.rowid`,
    )
    .all(contentHash(content), ...params) as DrawerRow[];
  const matches: DuplicateMatch[] = exactRows.map((row) => ({
    drawer: rowToDrawer(row),
    similarity: 1,
    exact: true,
  }));
  const [vector] = await core.embedding.embed([vectorText({ content, wing: "", room: "" })]);
  if (vector) {
    // Chroma filters by the wing and the grants; the registry check below is the truth.
    const where = filterWhere(filter);
    const near = await core.index.query(
      vector,
      DUPLICATE_CANDIDATES + exactRows.length,
      where === undefined ? {} : { where },
    );
    const exactIds = new Set(exactRows.map((row) => row.id));
    const candidates = near.filter((match) => !exactIds.has(match.id) && 1 - match.distance >= threshold);
    const rows = new Map(
      core.registry.byIds(candidates.map((match) => match.id)).map((row) => [row.id, row]),
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
export async function taxonomy(core: PalaceCore, access: PalaceAccess | undefined): Promise<WingCount[]> {
  core.ensureOpen();
  const confined = access?.readSql("d");
  const rows = core.db
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

export async function status(core: PalaceCore): Promise<PalaceStatus> {
  await core.flush();
  const one = (sql: string) => (core.db.prepare(sql).get() as { n: number }).n;
  return {
    name: core.config.name,
    dir: core.paths.dir,
    embedding: core.config.embedding,
    drawers: one("SELECT COUNT(*) AS n FROM drawers"),
    wings: one("SELECT COUNT(DISTINCT wing) AS n FROM drawers"),
    rooms: one("SELECT COUNT(*) AS n FROM (SELECT DISTINCT wing, room FROM drawers) AS scopes"),
    sources: one("SELECT COUNT(*) AS n FROM sources"),
    pinned: one("SELECT COUNT(*) AS n FROM drawers WHERE pinned = 1"),
    pendingVectors: one("SELECT COUNT(*) AS n FROM write_log WHERE applied_to_vectors = 0"),
  };
}

/** Pinned drawers `access` reads. */
export function countPinned(core: PalaceCore, access: PalaceAccess): number {
  core.ensureOpen();
  const confined = access.readSql("d");
  return (
    core.db
      .prepare(
        `SELECT COUNT(*) AS n FROM drawers d WHERE d.pinned = 1${confined ? ` AND ${confined.sql}` : ""}`,
      )
      .get(...(confined?.params ?? [])) as { n: number }
  ).n;
}

/**
 * Hybrid (or one-leg) search, filtered by wing, room, hall and time; records the hits' access
 * (one UPDATE) unless `recordAccess: false`.
 */
export async function searchDrawers(
  core: PalaceCore,
  query: string,
  options: SearchOptions & { recordAccess?: boolean },
): Promise<SearchHit[]> {
  await core.flush();
  const { hits, rowids } = await hybridSearch(core, query, options);
  core.ensureOpen();
  if (options.recordAccess !== false && rowids.length > 0)
    core.accessLog.record(rowids, new Date().toISOString());
  return hits;
}
