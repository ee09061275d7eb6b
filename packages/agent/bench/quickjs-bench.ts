/**
 * QuickJS executor figures, each measured against the same work in Node's `vm` module:
 * creating a sandbox, a trivial step, and a step that awaits one tool. Medians. The steps again
 * with the sandbox inside an OS-sandboxed process, beside the in-thread figures.
 */
import { pathToFileURL } from "node:url";
import vm from "node:vm";
import { type BenchRow, compared, median, sampleMs, writeBenchResults } from "@atrium/bench";
import { QuickJsExecutor } from "../src/executors/index.js";
import { addTool } from "./add-tool.js";

export async function benchQuickJs(): Promise<BenchRow[]> {
  // Warm the worker pool and the compiled wasm module: the figures are for steady state.
  await (await QuickJsExecutor.create()).close();

  // Creation only: closing (which hands the worker back for reuse) is outside the timed part.
  const createTimes: number[] = [];
  for (let i = 0; i < 50; i++) {
    const started = performance.now();
    const executor = await QuickJsExecutor.create();
    createTimes.push(performance.now() - started);
    await executor.close();
  }
  const createMs = median(createTimes);
  const vmCreateMs = await sampleMs(() => vm.createContext({}));

  // A long warm-up: the worker's wasm code is tiered up (Liftoff → TurboFan) in the background,
  // late when the machine is busy; the rows are for the steady state.
  const executor = await QuickJsExecutor.create({ tools: [addTool] });
  const stepMs = await sampleMs(() => executor.run("1 + 1"), { iterations: 200, warmup: 200 });
  const toolStepMs = await sampleMs(() => executor.run("await add({ a: 1, b: 2 })"), {
    iterations: 200,
    warmup: 200, // as long as the plain step's: the tool path (bridge, validation, events) tiers up too
  });
  await executor.close();

  const context = vm.createContext({
    add: (input: { a: number; b: number }) =>
      addTool.execute(input, { signal: new AbortController().signal }),
  });
  const vmStepMs = await sampleMs(() => vm.runInContext("1 + 1", context), { iterations: 200, warmup: 200 });
  const vmToolStepMs = await sampleMs(
    () => vm.runInContext("(async () => await add({ a: 1, b: 2 }))()", context),
    { iterations: 200, warmup: 200 },
  );

  // The same steps with the worker inside an OS-sandboxed process (isolation "process"), each
  // beside the in-thread figure of this run.
  const sandboxed = await QuickJsExecutor.create({ tools: [addTool], isolation: "process" });
  const processStepMs = await sampleMs(() => sandboxed.run("1 + 1"), { iterations: 200, warmup: 400 });
  const processToolStepMs = await sampleMs(() => sandboxed.run("await add({ a: 1, b: 2 })"), {
    iterations: 200,
    warmup: 400,
  });
  await sandboxed.close();

  return [
    compared("quickjs.process_step_ms", processStepMs, "ms", "quickjs.step_ms (in-thread, same run)", stepMs),
    compared(
      "quickjs.process_tool_step_ms",
      processToolStepMs,
      "ms",
      "quickjs.tool_step_ms (in-thread, same run)",
      toolStepMs,
    ),
    compared("quickjs.create_ms", createMs, "ms", "node:vm createContext", vmCreateMs),
    compared("quickjs.step_ms", stepMs, "ms", "node:vm runInContext", vmStepMs),
    compared("quickjs.tool_step_ms", toolStepMs, "ms", "node:vm runInContext + async tool", vmToolStepMs),
  ];
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  writeBenchResults("agent-quickjs", await benchQuickJs());
}
