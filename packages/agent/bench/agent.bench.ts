/**
 * The agent package's figures: the QuickJS rows (bench/quickjs-bench.ts), the same sandbox beside
 * AI SDK 7 code mode (bench/code-mode-peer-bench.ts), the model layer's rows
 * (bench/models-bench.ts), and the agent loop's own cost per step with a scripted model, model
 * time excluded, against the same code run on the bare executor.
 */

import { type BenchRow, compared, median, sampleMs, writeBenchResults } from "@atrium/bench";
import type { CodeExecutor, GenerateOptions, Message, Model, ModelResponse } from "@atrium/spec";
import { CodeAgent } from "../src/agents/index.js";
import { QuickJsExecutor } from "../src/executors/index.js";
import { ScriptedModel } from "../src/models/index.js";
import { benchApprovals } from "./approval-bench.js";
import { benchAgainstCodeMode } from "./code-mode-peer-bench.js";
import { measureModelRows } from "./models-bench.js";
import { benchQuickJs } from "./quickjs-bench.js";

const STEPS = 10;
const RUNS = 30;
const STEP_CODE = "const v = [1, 2, 3].map((n) => n * 2);\nv.length";

/** Adds up the time spent inside `inner`'s generate/stream. */
class TimedModel implements Model {
  readonly id = "timed";
  spentMs = 0;
  constructor(private readonly inner: Model) {}
  async generate(messages: Message[], options?: GenerateOptions): Promise<ModelResponse> {
    const start = performance.now();
    try {
      return await this.inner.generate(messages, options);
    } finally {
      this.spentMs += performance.now() - start;
    }
  }
  stream(messages: Message[], options?: GenerateOptions) {
    return this.inner.stream(messages, options);
  }
}

/** Adds up the time spent inside the executor (`run`, and `reset` at the start of each run). */
function timeExecutor(executor: CodeExecutor, spent: { ms: number }): CodeExecutor {
  const timed =
    <A extends unknown[], R>(method: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      const start = performance.now();
      try {
        return await method(...args);
      } finally {
        spent.ms += performance.now() - start;
      }
    };
  executor.run = timed(executor.run.bind(executor));
  executor.reset = timed(executor.reset.bind(executor));
  return executor;
}

async function loopRows(): Promise<BenchRow[]> {
  const codeOf = (step: number) => (step < STEPS - 1 ? STEP_CODE : "final_answer(v)");
  const reply = (call: number) => `Thought: go.\n\`\`\`js\n${codeOf(call)}\n\`\`\``;
  const executorTime = { ms: 0 };
  const executor = timeExecutor(await QuickJsExecutor.create(), executorTime);
  const perStep: number[] = [];
  const overhead: number[] = [];
  try {
    for (let run = 0; run < RUNS + 3; run++) {
      const model = new TimedModel(new ScriptedModel((_messages, _options, call) => reply(call)));
      const agent = new CodeAgent({ model, executor, maxSteps: STEPS });
      executorTime.ms = 0;
      const start = performance.now();
      const result = await agent.run("Double the numbers.");
      const wall = performance.now() - start;
      if (result.state !== "success" || result.stepCount !== STEPS)
        throw new Error(`bench run ended ${result.state}`);
      if (run < 3) continue; // warm-up
      perStep.push((wall - model.spentMs) / STEPS);
      overhead.push((wall - model.spentMs - executorTime.ms) / STEPS);
    }
    // The same work without the agent: reset the sandbox, then run the same ten code blocks.
    const bareRun = await sampleMs(
      async () => {
        await executor.reset();
        for (let step = 0; step < STEPS; step++) await executor.run(codeOf(step));
      },
      { iterations: RUNS, warmup: 3 },
    );
    const bare = bareRun / STEPS;
    return [
      compared(
        "agent.step_ms",
        median(perStep),
        "ms",
        "the same code run on the bare executor (reset + 10 runs)",
        bare,
      ),
      { metric: "agent.loop_overhead_ms", value: median(overhead), unit: "ms" },
    ];
  } finally {
    await executor.close();
  }
}

/** A row's value by metric; the code mode rows reuse this run's kept-sandbox step figures. */
function rowValue(rows: readonly BenchRow[], metric: string): number {
  const row = rows.find((candidate) => candidate.metric === metric);
  if (!row) throw new Error(`no ${metric} row`);
  return row.value;
}

const quickJsRows = await benchQuickJs();
const codeModeRows = await benchAgainstCodeMode({
  stepMs: rowValue(quickJsRows, "quickjs.step_ms"),
  toolStepMs: rowValue(quickJsRows, "quickjs.tool_step_ms"),
});
const approvalRows = await benchApprovals();
writeBenchResults("agent", [
  ...quickJsRows,
  ...codeModeRows,
  ...approvalRows,
  ...(await loopRows()),
  ...(await measureModelRows()),
]);
