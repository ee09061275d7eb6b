import { type BenchRow, compared } from "@atrium/bench";
import type { Palace } from "../src/palace.js";
import type { SearchMode } from "../src/search/hybrid-search.js";
import { syntheticQueries } from "./synthetic-conversations.js";
import { syntheticPalace } from "./synthetic-palace.js";

/** Timed queries per configuration, and untimed ones first (JIT, SQLite page cache, Chroma's HNSW in memory). */
const QUERIES = 300;
const WARMUP = 20;

/** The value at fraction `p` of the sorted `values` (nearest rank). */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) throw new Error("percentile of no values");
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.ceil(p * sorted.length) - 1;
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank))] as number;
}

export interface LatencySample {
  p50: number;
  p95: number;
}

/**
 * Wall time of `palace.search` as a caller sees it (k = 10, access recorded, as by default) over
 * `queries`, each searched in its wing when `scoped`.
 */
export async function searchLatency(
  palace: Palace,
  queries: readonly { query: string; wing: string }[],
  options: { mode: SearchMode; scoped: boolean },
): Promise<LatencySample> {
  const times: number[] = [];
  for (const [index, { query, wing }] of queries.entries()) {
    const start = performance.now();
    await palace.search(query, { k: 10, mode: options.mode, ...(options.scoped ? { wing } : {}) });
    if (index >= WARMUP) times.push(performance.now() - start);
  }
  return { p50: percentile(times, 0.5), p95: percentile(times, 0.95) };
}

/**
 * `search.p50_ms_<label>` and friends on a synthetic palace of `size` drawers: hybrid search,
 * unscoped and scoped to one wing, each beside the BM25 leg alone on the same queries.
 */
export async function searchLatencyRows(
  size: number,
  label: string,
  log: (line: string) => void,
  store: { postgresUrl?: string; dir?: string } = {},
): Promise<BenchRow[]> {
  const built = await syntheticPalace(
    size,
    (filed) => log(`building the ${label} palace: ${filed}/${size}`),
    store,
  );
  log(
    built.built
      ? `built the ${label} palace in ${built.buildSeconds.toFixed(0)} s (cached for later runs)`
      : `the ${label} palace came from the cache`,
  );
  const { palace } = built;
  try {
    const queries = syntheticQueries(WARMUP + QUERIES, built.wings, 7 * size + 1);
    const rows: BenchRow[] = [];
    for (const scoped of [false, true]) {
      const hybrid = await searchLatency(palace, queries, { mode: "hybrid", scoped });
      const bm25 = await searchLatency(palace, queries, { mode: "bm25", scoped });
      const prefix = scoped ? "search.scoped_" : "search.";
      rows.push(
        compared(`${prefix}p50_ms_${label}`, hybrid.p50, "ms", "bm25 only", bm25.p50),
        compared(`${prefix}p95_ms_${label}`, hybrid.p95, "ms", "bm25 only", bm25.p95),
      );
    }
    return rows;
  } finally {
    await palace.close();
  }
}
