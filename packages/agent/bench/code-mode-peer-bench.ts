/**
 * The QuickJS executor beside AI SDK 7 code mode, in the same run. Code mode makes a fresh
 * QuickJS sandbox for every code action and keeps none between actions; so the like-for-like rows
 * are Atrium's fresh sandbox + one action (created, run, closed), with and without one tool call.
 * Atrium's kept-sandbox steps are set against the same peer figures, since a kept sandbox is what
 * an Atrium agent's second and later steps cost. The peer runs on Node 22 in a child process
 * (@atrium/bench/code-mode-peer); when it cannot, the bench says why and leaves its rows out.
 */
import { type BenchRow, compared, median } from "@atrium/bench";
import { type CodeModePeerReport, runCodeModePeer } from "@atrium/bench/code-mode-peer";
import type { Tool } from "@atrium/spec";
import { QuickJsExecutor } from "../src/executors/index.js";

const ITERATIONS = 200;
const WARMUP = 50;

const addTool: Tool<{ a: number; b: number }, number> = {
  name: "add",
  description: "Adds a and b.",
  inputSchema: { type: "object" },
  async execute({ a, b }) {
    return a + b;
  },
};

/** The same actions the peer runs, each with the output both sides must return. */
const ACTION = { code: "1 + 1", expected: 2 };
const TOOL_ACTION = { code: "await add({ a: 1, b: 2 })", expected: 3 };

/** Median of create → run one action → close, the whole life of a one-action sandbox. */
async function freshSandboxMs(action: { code: string; expected: number }): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < WARMUP + ITERATIONS; i++) {
    const started = performance.now();
    const executor = await QuickJsExecutor.create({ tools: [addTool] });
    const result = await executor.run(action.code);
    await executor.close();
    const elapsed = performance.now() - started;
    if (result.error || result.output !== action.expected)
      throw new Error(
        `${action.code} gave ${JSON.stringify(result.output)} (${result.error?.message ?? "no error"})`,
      );
    if (i >= WARMUP) times.push(elapsed);
  }
  return median(times);
}

const PEER = "AI SDK 7 code mode (@ai-sdk/code-mode, Node 22)";

function peerRows(
  peer: CodeModePeerReport,
  atrium: Record<"fresh" | "freshTool" | "kept" | "keptTool", number>,
) {
  const action = peer.freshAction.medianMs;
  const toolAction = peer.freshToolAction.medianMs;
  return [
    { metric: "code_mode.fresh_action_ms", value: action, unit: "ms" },
    { metric: "code_mode.fresh_tool_action_ms", value: toolAction, unit: "ms" },
    compared("quickjs.fresh_action_ms", atrium.fresh, "ms", `${PEER}: fresh sandbox + action`, action),
    compared(
      "quickjs.fresh_tool_action_ms",
      atrium.freshTool,
      "ms",
      `${PEER}: fresh sandbox + tool call`,
      toolAction,
    ),
    compared(
      "quickjs.kept_step_vs_code_mode_ms",
      atrium.kept,
      "ms",
      `${PEER}: fresh sandbox + action`,
      action,
    ),
    compared(
      "quickjs.kept_tool_step_vs_code_mode_ms",
      atrium.keptTool,
      "ms",
      `${PEER}: fresh sandbox + tool call`,
      toolAction,
    ),
  ];
}

/**
 * `kept`: this run's kept-sandbox step figures (quickjs.step_ms, quickjs.tool_step_ms), so the
 * rows compare figures taken minutes apart on the same machine, never across runs.
 */
export async function benchAgainstCodeMode(kept: {
  stepMs: number;
  toolStepMs: number;
}): Promise<BenchRow[]> {
  const fresh = await freshSandboxMs(ACTION);
  const freshTool = await freshSandboxMs(TOOL_ACTION);
  const peer = runCodeModePeer({ iterations: ITERATIONS, warmup: WARMUP });
  if (!peer.ok) {
    console.log(`code mode peer not measured, its rows are left out: ${peer.reason}`);
    return [
      { metric: "quickjs.fresh_action_ms", value: fresh, unit: "ms" },
      { metric: "quickjs.fresh_tool_action_ms", value: freshTool, unit: "ms" },
    ];
  }
  const { versions } = peer.report;
  console.log(
    `code mode peer: @ai-sdk/code-mode ${versions.codeMode}, ai ${versions.ai}, Node ${versions.node}`,
  );
  return peerRows(peer.report, { fresh, freshTool, kept: kept.stepMs, keptTool: kept.toolStepMs });
}
