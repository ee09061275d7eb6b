import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { LEXICAL_INDEX_VERSION } from "../src/db/lexical-table.js";
import { PALACE_FORMAT_VERSION } from "../src/db/palace-dir.js";
import { SCHEMA_VERSION } from "../src/db/schema.js";
import type { DrawerDraft } from "../src/drawers/drawer.js";
import { openPalace } from "../src/open-palace.js";
import type { Palace } from "../src/palace.js";
import { SYNTHETIC_VERSION, syntheticDrafts } from "./synthetic-conversations.js";

/** Wings of a synthetic palace: 1 per 400 drawers, so a scoped search covers a person's share. */
export const drawersPerWing = 400;
/** Drafts per `palace.file` call while building. */
const BUILD_BATCH = 2_000;

/**
 * Everything a cached palace depends on: a change to the generator, the lexical index, the
 * registry schema or the palace format makes a new cache directory instead of reusing a stale one.
 */
const CACHE_KEY = `s${SYNTHETIC_VERSION}-l${LEXICAL_INDEX_VERSION}-d${SCHEMA_VERSION}-f${PALACE_FORMAT_VERSION}`;
const COMPLETE_MARKER = "bench-complete.json";

export interface SyntheticPalace {
  palace: Palace;
  wings: number;
  /** False when it was opened from the cache. */
  built: boolean;
  /** Seconds the build took (0 when cached). */
  buildSeconds: number;
}

/**
 * Opens the synthetic palace of `size` drawers, building it first unless a complete one is in the
 * cache (`<os tmp>/atrium-palace-bench/<key>/<size>`). A build killed half-way has no marker, so
 * the next run starts it over.
 */
export async function syntheticPalace(
  size: number,
  onProgress?: (filed: number) => void,
  store: { postgresUrl?: string; dir?: string } = {},
): Promise<SyntheticPalace> {
  const dir = store.dir ?? join(tmpdir(), "atrium-palace-bench", CACHE_KEY, String(size));
  const marker = join(dir, COMPLETE_MARKER);
  const wings = Math.max(1, Math.round(size / drawersPerWing));
  if (existsSync(marker)) {
    const recorded = JSON.parse(readFileSync(marker, "utf8")) as { drawers: number };
    const palace = await openPalace(dir);
    const status = await palace.status();
    if (status.drawers === recorded.drawers && status.pendingVectors === 0)
      return { palace, wings, built: false, buildSeconds: 0 };
    await palace.close();
  }
  rmSync(dir, { recursive: true, force: true });
  const start = performance.now();
  const palace = await openPalace(dir, {
    create: true,
    name: `bench-${size}`,
    ...(store.postgresUrl ? { postgresUrl: store.postgresUrl } : {}),
  });
  try {
    let batch: DrawerDraft[] = [];
    let filed = 0;
    for (const draft of syntheticDrafts({ drawers: size, wings, seed: size })) {
      batch.push(draft);
      if (batch.length === BUILD_BATCH) {
        filed += (await palace.file(batch)).length;
        batch = [];
        onProgress?.(filed);
      }
    }
    if (batch.length > 0) filed += (await palace.file(batch)).length;
    const { drawers } = await palace.status();
    writeFileSync(marker, `${JSON.stringify({ drawers, key: CACHE_KEY })}\n`);
    return { palace, wings, built: true, buildSeconds: (performance.now() - start) / 1000 };
  } catch (error) {
    await palace.close();
    throw error;
  }
}
