import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";

/**
 * The `pnpm bench` convention: each package writes `bench-results/<package>.json` at the repo
 * root, an array of these rows, and prints the same rows as a table.
 */
export interface BenchRow {
  metric: string;
  value: number;
  unit: string;
  baseline?: string;
  baselineValue?: number;
  ratio?: number;
}

export function median(values: readonly number[]): number {
  if (values.length === 0) throw new Error("median of no values");
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

export interface SampleOptions {
  /** Timed iterations (default 50). */
  iterations?: number;
  /** Untimed iterations first, to warm caches and the JIT (default 5). */
  warmup?: number;
}

/** Median wall time of `fn` in milliseconds. */
export async function sampleMs(fn: () => unknown, options: SampleOptions = {}): Promise<number> {
  const { iterations = 50, warmup = 5 } = options;
  for (let i = 0; i < warmup; i++) await fn();
  const times: number[] = [];
  for (let i = 0; i < iterations; i++) {
    const start = performance.now();
    await fn();
    times.push(performance.now() - start);
  }
  return median(times);
}

/** A row measured against a baseline; ratio = value ÷ baselineValue (lower is better for times). */
export function compared(
  metric: string,
  value: number,
  unit: string,
  baseline: string,
  baselineValue: number,
): BenchRow {
  return {
    metric,
    value,
    unit,
    baseline,
    baselineValue,
    ratio: baselineValue === 0 ? 0 : value / baselineValue,
  };
}

function round(value: number): number {
  return Math.abs(value) >= 100 ? Math.round(value * 10) / 10 : Math.round(value * 1000) / 1000;
}

export function formatBenchTable(rows: readonly BenchRow[]): string {
  const header = ["metric", "value", "unit", "baseline", "baseline value", "ratio"];
  const body = rows.map((row) => [
    row.metric,
    String(round(row.value)),
    row.unit,
    row.baseline ?? "",
    row.baselineValue === undefined ? "" : String(round(row.baselineValue)),
    row.ratio === undefined ? "" : `${round(row.ratio)}×`,
  ]);
  const widths = header.map((title, i) => Math.max(title.length, ...body.map((cells) => cells[i]!.length)));
  const line = (cells: string[]) => `| ${cells.map((cell, i) => cell.padEnd(widths[i]!)).join(" | ")} |`;
  return [line(header), line(widths.map((w) => "-".repeat(w))), ...body.map(line)].join("\n");
}

/** Finds the repository root (the folder holding pnpm-workspace.yaml) at or above `from`. */
export function repoRoot(from: string): string {
  let dir = from;
  while (!existsSync(join(dir, "pnpm-workspace.yaml"))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`no pnpm-workspace.yaml at or above ${from}`);
    dir = parent;
  }
  return dir;
}

/** Writes `bench-results/<name>.json` at the repo root and prints the table. Returns the path. */
export function writeBenchResults(
  name: string,
  rows: readonly BenchRow[],
  root = repoRoot(process.cwd()),
): string {
  const path = join(root, "bench-results", `${name}.json`);
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, `${JSON.stringify(rows, null, 2)}\n`);
  console.log(`\n${name}\n${formatBenchTable(rows)}\n→ ${path}`);
  return path;
}

/**
 * A small, fast, seeded PRNG (mulberry32): the same seed yields the same sequence on every
 * machine, so generated corpora and benchmark data are the same everywhere.
 */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
