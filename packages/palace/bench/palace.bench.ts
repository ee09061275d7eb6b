/**
 * The figures issue 13 names, measured in one run (`pnpm bench` → bench-results/palace.json):
 * - LoCoMo retrieval (conversations 0–4) through real palaces: hybrid search beside its BM25 and
 *   vector legs alone and the plain BM25 and plain vector baselines, and scoped beside flat;
 * - hybrid search latency on synthetic palaces of 10k and 100k drawers, unscoped and scoped,
 *   beside the BM25 leg alone (the palaces are built once and cached under the OS tmp dir);
 * - mining throughput with the offline embedding, beside filing the same turns directly;
 * - the same LoCoMo recalls and the 100k search latency with the palace on PostgreSQL, each beside
 *   SQLite's (issue 29; the 100k PostgreSQL palace is built every run, several minutes).
 *
 * Run time on an idle 2-core machine: a few minutes, plus the one-time build of the cached
 * synthetic palaces (the 100k one takes several minutes).
 */
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { type BenchRow, repoRoot, writeBenchResults } from "@atrium/bench";
import { loadLocomo } from "./locomo/locomo-format.js";
import { runPalaceLocomo } from "./locomo/locomo-palace.js";
import { mineThroughputRows } from "./mine-throughput.js";
import { postgresStoreRows } from "./postgres-store.js";
import { searchLatencyRows } from "./search-latency.js";

const root = repoRoot(dirname(fileURLToPath(import.meta.url)));
const LOCOMO_FILE = join(root, "fixtures", "data", "locomo-dev.json");

const began = performance.now();
const log = (line: string) => {
  process.stderr.write(`[${((performance.now() - began) / 1000).toFixed(0).padStart(4)} s] ${line}\n`);
};

const rows: BenchRow[] = [];

log("LoCoMo: mining each conversation into its own palace, then all into one");
rows.push(
  ...(await runPalaceLocomo(LOCOMO_FILE, {
    scoped: true,
    onProgress: (progress) => {
      if (progress.phase === "mine")
        log(
          `filed ${progress.drawers} drawers into palace ${progress.palace} in ${progress.ms.toFixed(0)} ms`,
        );
      else if (progress.done === progress.total)
        log(`searched ${progress.total} questions (${progress.mode})`);
    },
  })),
);

rows.push(...(await searchLatencyRows(10_000, "10k", log)));
rows.push(...(await searchLatencyRows(100_000, "100k", log)));

rows.push(...(await mineThroughputRows(loadLocomo(readFileSync(LOCOMO_FILE, "utf8")), log)));

rows.push(...(await postgresStoreRows(LOCOMO_FILE, rows, [{ size: 100_000, label: "100k" }], log)));

log("done");
writeBenchResults("palace", rows, root);
