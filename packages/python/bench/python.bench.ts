/**
 * Python executor figures (medians), each beside what Pyodide itself costs for the same work in
 * the main thread (no worker, no harness, no guards): creating a sandbox (cold: restoring the
 * pool's interpreter snapshot; pooled: a warm sandbox), a trivial step, and a step that calls
 * one tool. The `python.*` rows are the default, the interpreter in an OS-sandboxed process;
 * the `python.thread_*` rows are the in-thread mode (isolation "wasm") of the same run, each
 * beside its OS-sandboxed counterpart. The QuickJS executor's figures from the agent bench
 * (bench-results/agent.json, when present) are copied beside them for comparison.
 */
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { type BenchRow, compared, median, repoRoot, sampleMs, writeBenchResults } from "@atrium/bench";
import type { Tool } from "@atrium/spec";
import { loadPyodide } from "pyodide";
import {
  drainPythonWorkers,
  PythonExecutor,
  type PythonIsolation,
  setWarmPythonWorkers,
} from "../src/index.js";

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

interface IsolationFigures {
  firstCreateMs: number;
  createMs: number;
  pooledCreateMs: number;
  stepMs: number;
  toolStepMs: number;
}

/** Creation (cold and pooled) and step figures of one isolation, each a median. */
async function measureIsolation(isolation: PythonIsolation): Promise<IsolationFigures> {
  // The first executor of a pool boots CPython from scratch and snapshots it.
  setWarmPythonWorkers(0);
  const [firstCreateMs, first] = await timed(() => PythonExecutor.create({ isolation }));
  await first.close();

  const createTimes: number[] = [];
  for (let i = 0; i < 5; i++) {
    const [ms, executor] = await timed(() => PythonExecutor.create({ isolation }));
    createTimes.push(ms);
    await executor.close();
  }

  // Pooled: a warm sandbox is waiting (booted while the process had nothing else to do).
  const pooledTimes: number[] = [];
  for (let i = 0; i < 10; i++) {
    await PythonExecutor.prewarm(1, isolation);
    const [ms, executor] = await timed(() => PythonExecutor.create({ isolation }));
    pooledTimes.push(ms);
    await executor.close();
  }
  setWarmPythonWorkers(0);

  // A long warm-up: CPython's wasm is tiered up (Liftoff → TurboFan) in the background.
  const executor = await PythonExecutor.create({ tools: [addTool], isolation });
  const stepMs = await sampleMs(() => executor.run("1 + 1"), { iterations: 200, warmup: 400 });
  const toolStepMs = await sampleMs(() => executor.run("add(a=1, b=2)"), { iterations: 200, warmup: 400 });
  await executor.close();
  await drainPythonWorkers();
  return {
    firstCreateMs,
    createMs: median(createTimes),
    pooledCreateMs: median(pooledTimes),
    stepMs,
    toolStepMs,
  };
}

export async function benchPython(): Promise<BenchRow[]> {
  const indexURL = `${join(createRequire(import.meta.url).resolve("pyodide/package.json"), "..")}/`;

  // The default: the interpreter in an OS-sandboxed process; then the in-thread mode, same run.
  const sandboxed = await measureIsolation("process");
  const inThread = await measureIsolation("wasm");

  const loadTimes: number[] = [];
  for (let i = 0; i < 3; i++) loadTimes.push((await timed(() => loadPyodide({ indexURL })))[0]);
  const loadPyodideMs = median(loadTimes);

  const pyodide = await loadPyodide({ indexURL });
  const runPythonMs = await sampleMs(() => pyodide.runPython("1 + 1"), { iterations: 200, warmup: 200 });
  pyodide.registerJsModule("host", { add: (a: number, b: number) => a + b });
  pyodide.runPython("from host import add");
  const runPythonFfiMs = await sampleMs(() => pyodide.runPython("add(1, 2)"), {
    iterations: 200,
    warmup: 200,
  });

  const raw = "raw loadPyodide (main thread)";
  return [
    compared("python.create_ms", sandboxed.createMs, "ms", raw, loadPyodideMs),
    compared("python.first_create_ms", sandboxed.firstCreateMs, "ms", raw, loadPyodideMs),
    compared("python.pooled_create_ms", sandboxed.pooledCreateMs, "ms", raw, loadPyodideMs),
    compared("python.step_ms", sandboxed.stepMs, "ms", "raw runPython('1 + 1')", runPythonMs),
    compared(
      "python.tool_step_ms",
      sandboxed.toolStepMs,
      "ms",
      "raw runPython of a call into a sync JS function",
      runPythonFfiMs,
    ),
    compared(
      "python.thread_create_ms",
      inThread.createMs,
      "ms",
      "python.create_ms (OS sandbox)",
      sandboxed.createMs,
    ),
    compared(
      "python.thread_first_create_ms",
      inThread.firstCreateMs,
      "ms",
      "python.first_create_ms (OS sandbox)",
      sandboxed.firstCreateMs,
    ),
    compared(
      "python.thread_pooled_create_ms",
      inThread.pooledCreateMs,
      "ms",
      "python.pooled_create_ms (OS sandbox)",
      sandboxed.pooledCreateMs,
    ),
    compared("python.thread_step_ms", inThread.stepMs, "ms", "python.step_ms (OS sandbox)", sandboxed.stepMs),
    compared(
      "python.thread_tool_step_ms",
      inThread.toolStepMs,
      "ms",
      "python.tool_step_ms (OS sandbox)",
      sandboxed.toolStepMs,
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
    .filter((row) =>
      [
        "quickjs.create_ms",
        "quickjs.step_ms",
        "quickjs.tool_step_ms",
        "quickjs.process_step_ms",
        "quickjs.process_tool_step_ms",
      ].includes(row.metric),
    )
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
