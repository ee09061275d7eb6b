import { palaceCore } from "../core/palace-core.js";
import { DRAWER_COLUMNS, type DrawerRow, rowToDrawer } from "../db/drawer-row.js";
import type { Drawer } from "../drawers/drawer.js";
import type { Palace } from "../palace.js";
import { checkLayerScope, type LayerScope, layerDrawerSql, layerGraph } from "./layer-options.js";
import {
  ACCESS_HALF_LIFE_MS,
  ESSENTIAL_WEIGHTS,
  PINNED_CANDIDATES,
  RECENCY_HALF_LIFE_MS,
  SCORED_CANDIDATES,
  TOP_FACTS,
} from "./layer-tuning.js";

/** A drawer L1 chose, and why. */
export interface EssentialDrawer {
  drawer: Drawer;
  /** 0 for pinned drawers (they come first whatever their score); else the combined signal. */
  score: number;
}

/** L1: what matters most, in the order the wake-up offers it. */
export interface EssentialsLayer {
  /** Pinned drawers, newest first. */
  pinned: EssentialDrawer[];
  /** The knowledge graph's facts about its most connected entities, true now. */
  facts: string[];
  /** Unpinned drawers by access count and recency, best first. */
  scored: EssentialDrawer[];
}

/**
 * L1, chosen by real signals: pins first, then a score combining how often and how recently
 * searches returned a drawer with how recent the memory itself is (see `ESSENTIAL_WEIGHTS`); plus
 * the knowledge graph's top facts. Outside a diary wing, diary entries are left to `diaryRead`.
 */
export function essentialsLayer(
  palace: Palace,
  scope: LayerScope & {
    /** Drawers each signal offers before scoring (default `SCORED_CANDIDATES`). */
    candidates?: number;
  } = {},
): EssentialsLayer {
  const checked = checkLayerScope(
    {
      ...(scope.wing === undefined ? {} : { wing: scope.wing }),
      ...(scope.access === undefined ? {} : { access: scope.access }),
    },
    palace.limits,
  );
  const candidates = Math.max(scope.candidates ?? SCORED_CANDIDATES, 1);
  const { db } = palaceCore(palace);
  const confined = layerDrawerSql(checked);
  const where = checked.wing === undefined ? `d.hall != 'diary' AND ${confined.sql}` : confined.sql;
  const select = (condition: string, order: string, limit: number) =>
    db
      .prepare(
        `SELECT ${DRAWER_COLUMNS} FROM drawers d WHERE ${where} AND ${condition} ORDER BY ${order} LIMIT ?`,
      )
      .all(...confined.params, limit) as DrawerRow[];

  const pinned = select(
    "d.pinned = 1",
    "d.timestamp_ms DESC, d.rowid DESC",
    Math.max(PINNED_CANDIDATES, candidates),
  );
  const accessed = select(
    "d.pinned = 0 AND d.access_count > 0",
    "d.access_count DESC, d.last_accessed DESC",
    candidates,
  );
  const recent = select("d.pinned = 0", "d.timestamp_ms DESC, d.rowid DESC", candidates);

  const rows = new Map<string, DrawerRow>();
  for (const row of [...accessed, ...recent]) rows.set(row.id, row);
  const newest = recent[0]?.timestamp_ms ?? 0;
  const mostAccessed = Math.max(0, ...[...rows.values()].map((row) => row.access_count));
  const now = Date.now();
  const score = (row: DrawerRow) => {
    const access = mostAccessed > 0 ? Math.log1p(row.access_count) / Math.log1p(mostAccessed) : 0;
    const recency = 0.5 ** ((newest - row.timestamp_ms) / RECENCY_HALF_LIFE_MS);
    const lastAccessed = row.last_accessed === null ? Number.NaN : Date.parse(row.last_accessed);
    const recentAccess = Number.isNaN(lastAccessed)
      ? 0
      : 0.5 ** (Math.max(0, now - lastAccessed) / ACCESS_HALF_LIFE_MS);
    return (
      ESSENTIAL_WEIGHTS.access * access +
      ESSENTIAL_WEIGHTS.recency * recency +
      ESSENTIAL_WEIGHTS.recentAccess * recentAccess
    );
  };
  const scored = [...rows.values()]
    .map((row) => ({ row, score: score(row) }))
    .sort((a, b) => b.score - a.score || b.row.rowid - a.row.rowid)
    .map(({ row, score }) => ({ drawer: rowToDrawer(row), score }));
  return {
    pinned: pinned.map((row) => ({ drawer: rowToDrawer(row), score: 0 })),
    facts: layerGraph(palace, checked).factsFor(undefined, TOP_FACTS),
    scored,
  };
}
