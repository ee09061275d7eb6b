/**
 * Python executor figures (medians), each beside what Pyodide itself costs for the same work in
 * the main thread (no worker, no harness, no guards): creating a sandbox (cold: a worker
 * restoring the process's interpreter snapshot; pooled: a warm worker), a trivial step, and a
 * step that calls one tool. The QuickJS executor's figures from the agent bench
 * (bench-results/agent.json, when present) are copied beside them for comparison.
 */
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { Tool } from "@atrium/spec";
import { type BenchRow, compared, median, repoRoot, sampleMs, writeBenchResults } from "@atrium/spec/bench";
import { loadPyodide } from "pyodide";
import { drainPythonWorkers, PythonExecutor, setWarmPythonWorkers } from "../src/index.js";

const addTool: Tool<{ a: number; b: number }, number> = {
  name: "add",
  description: "Adds a and b.",
  inputSchema: { type: "object", properties: { a: { type: "number" }, b: { type: "number" } } },
  async execute({ a, b }) {
    return a + b;
  },
};

async function timed<T>(fn: () => Promise<T>): Promise<[number, T]> {
  const started = performance.now();
  const value = await fn();
  return [performance.now() - started, value];
}

export async function benchPython(): Promise<BenchRow[]> {
  const indexURL = `${join(createRequire(import.meta.url).resolve("pyodide/package.json"), "..")}/`;

  // The first executor of a process boots CPython from scratch and snapshots it.
  setWarmPythonWorkers(0);
  const [firstCreateMs, first] = await timed(() => PythonExecutor.create());
  await first.close();

  const createTimes: number[] = [];
  for (let i = 0; i < 5; i++) {
    const [ms, executor] = await timed(() => PythonExecutor.create());
    createTimes.push(ms);
    await executor.close();
  }
  const loadTimes: number[] = [];
  for (let i = 0; i < 3; i++) loadTimes.push((await timed(() => loadPyodide({ indexURL })))[0]);
  const loadPyodideMs = median(loadTimes);

  // Pooled: a warm worker is waiting (booted while the process had nothing else to do).
  const pooledTimes: number[] = [];
  for (let i = 0; i < 10; i++) {
    await PythonExecutor.prewarm(1);
    const [ms, executor] = await timed(() => PythonExecutor.create());
    pooledTimes.push(ms);
    await executor.close();
  }
  setWarmPythonWorkers(0);

  // A long warm-up: CPython's wasm is tiered up (Liftoff → TurboFan) in the background.
  const executor = await PythonExecutor.create({ tools: [addTool] });
  const stepMs = await sampleMs(() => executor.run("1 + 1"), { iterations: 200, warmup: 200 });
  const toolStepMs = await sampleMs(() => executor.run("add(a=1, b=2)"), { iterations: 200, warmup: 200 });
  await executor.close();

  const pyodide = await loadPyodide({ indexURL });
  const runPythonMs = await sampleMs(() => pyodide.runPython("1 + 1"), { iterations: 200, warmup: 200 });
  pyodide.registerJsModule("host", { add: (a: number, b: number) => a + b });
  pyodide.runPython("from host import add");
  const runPythonFfiMs = await sampleMs(() => pyodide.runPython("add(1, 2)"), {
    iterations: 200,
    warmup: 200,
  });
  await drainPythonWorkers();

  return [
    compared("python.create_ms", median(createTimes), "ms", "raw loadPyodide (main thread)", loadPyodideMs),
    compared("python.first_create_ms", firstCreateMs, "ms", "raw loadPyodide (main thread)", loadPyodideMs),
    compared(
      "python.pooled_create_ms",
      median(pooledTimes),
      "ms",
      "raw loadPyodide (main thread)",
      loadPyodideMs,
    ),
    compared("python.step_ms", stepMs, "ms", "raw runPython('1 + 1')", runPythonMs),
    compared(
      "python.tool_step_ms",
      toolStepMs,
      "ms",
      "raw runPython of a call into a sync JS function",
      runPythonFfiMs,
    ),
    ...quickJsRows(),
  ];
}

/** The QuickJS executor's rows from the agent bench's last results, for the table beside these. */
function quickJsRows(): BenchRow[] {
  const path = join(repoRoot(process.cwd()), "bench-results", "agent.json");
  if (!existsSync(path)) return [];
  const rows = JSON.parse(readFileSync(path, "utf8")) as BenchRow[];
  return rows
    .filter((row) => ["quickjs.create_ms", "quickjs.step_ms", "quickjs.tool_step_ms"].includes(row.metric))
    .map((row) => ({
      metric: row.metric,
      value: row.value,
      unit: row.unit,
      baseline: "from bench-results/agent.json",
    }));
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  writeBenchResults("python", await benchPython());
}
