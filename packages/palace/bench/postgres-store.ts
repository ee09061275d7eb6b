import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type BenchRow, compared } from "@atrium/bench";
import { freshDatabase, startPostgres } from "../test-support/postgres-server.js";
import { runPalaceLocomo } from "./locomo/locomo-palace.js";
import { searchLatencyRows } from "./search-latency.js";

/**
 * The palace on PostgreSQL beside the same measures on SQLite (issue 29), in one run: every
 * LoCoMo recall of each search mode, and search latency on synthetic palaces. Rows are
 * `postgres.<the SQLite row's metric>[.<mode>]` with the SQLite figure as the baseline, so the
 * ratio says how far the stores differ. PostgreSQL is a throwaway server on loopback
 * (test-support/postgres-server.ts), fsync off as in the tests: a deployment's disk adds to writes,
 * not to these searches.
 */
export async function postgresStoreRows(
  locomoFile: string,
  sqliteRows: readonly BenchRow[],
  sizes: readonly { size: number; label: string }[],
  log: (line: string) => void,
): Promise<BenchRow[]> {
  const server = await startPostgres();
  const rows: BenchRow[] = [];
  try {
    log("PostgreSQL: LoCoMo, each conversation and all of them in palaces on PostgreSQL");
    const locomo = await runPalaceLocomo(locomoFile, {
      scoped: true,
      postgresUrl: () => freshDatabase(server),
    });
    rows.push(...storeComparison(sqliteRows, locomo, (metric) => metric.includes("recall")));
    for (const { size, label } of sizes) {
      const dir = await mkdtemp(join(tmpdir(), `atrium-palace-bench-pg-${label}-`));
      try {
        const latency = await searchLatencyRows(size, label, (line) => log(`PostgreSQL: ${line}`), {
          postgresUrl: await freshDatabase(server),
          dir,
        });
        rows.push(...storeComparison(sqliteRows, latency, (metric) => metric.startsWith("search.")));
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    }
  } finally {
    await server.stop();
  }
  return rows;
}

/**
 * Each mode's figure on PostgreSQL beside the same mode's on SQLite. A row holds two modes (its
 * value, and its baseline's value); both are compared: `postgres.<metric>` for the value and
 * `postgres.<metric>.<baseline>` for the baseline's.
 */
export function storeComparison(
  sqlite: readonly BenchRow[],
  postgres: readonly BenchRow[],
  wanted: (metric: string) => boolean,
): BenchRow[] {
  const figures = (rows: readonly BenchRow[]) => {
    const byKey = new Map<string, { value: number; unit: string }>();
    for (const row of rows) {
      if (!wanted(row.metric)) continue;
      byKey.set(row.metric, { value: row.value, unit: row.unit });
      // The plain baselines (bench/locomo) search no palace: the same on either store.
      if (row.baseline !== undefined && row.baselineValue !== undefined && !row.baseline.startsWith("plain-"))
        byKey.set(`${row.metric}.${row.baseline}`, { value: row.baselineValue, unit: row.unit });
    }
    return byKey;
  };
  const onSqlite = figures(sqlite);
  const rows: BenchRow[] = [];
  for (const [key, figure] of figures(postgres)) {
    const baseline = onSqlite.get(key);
    if (baseline) rows.push(compared(`postgres.${key}`, figure.value, figure.unit, "sqlite", baseline.value));
  }
  return rows;
}
