/**
 * The QuickJS executor beside AI SDK 7 code mode, in the same run. Code mode makes a fresh
 * QuickJS sandbox for every code action and keeps none between actions; so the like-for-like rows
 * are Atrium's fresh sandbox + one action (created, run, closed), with and without one tool call.
 * Atrium's kept-sandbox steps are set against the same peer figures, since a kept sandbox is what
 * an Atrium agent's second and later steps cost. The peer runs on Node 22 in a child process
 * (@atrium/bench/code-mode-peer); when it cannot, the bench says why and leaves its rows out.
 * The machine is shared, so the two sides take turns (ROUNDS rounds of ITERATIONS / ROUNDS each)
 * and each row is the median of all its rounds' samples: a burst of load falls on both sides.
 */
import { type BenchRow, compared, median } from "@atrium/bench";
import { type CodeModePeerReport, runCodeModePeer } from "@atrium/bench/code-mode-peer";
import { QuickJsExecutor } from "../src/executors/index.js";
import { addTool } from "./add-tool.js";

const ITERATIONS = 200;
const ROUNDS = 4;
const WARMUP = 50;

/** The same actions the peer runs, each with the output both sides must return. */
const ACTION = { code: "1 + 1", expected: 2 };
const TOOL_ACTION = { code: "await add({ a: 1, b: 2 })", expected: 3 };

/**
 * Times of create → run one action → close, the whole life of a one-action sandbox, and of the
 * part before close: QuickJsExecutor builds the next sandbox while it closes (so create is cheap),
 * so the whole cycle is the cost per action and the part before close the wait for its result.
 */
async function freshSandboxSamples(
  action: { code: string; expected: number },
  iterations: number,
  warmup: number,
): Promise<{ whole: number[]; toResult: number[] }> {
  const whole: number[] = [];
  const toResult: number[] = [];
  for (let i = 0; i < warmup + iterations; i++) {
    const started = performance.now();
    const executor = await QuickJsExecutor.create({ tools: [addTool] });
    const result = await executor.run(action.code);
    const answered = performance.now();
    await executor.close();
    const closed = performance.now();
    if (result.error || result.output !== action.expected)
      throw new Error(
        `${action.code} gave ${JSON.stringify(result.output)} (${result.error?.message ?? "no error"})`,
      );
    if (i < warmup) continue;
    whole.push(closed - started);
    toResult.push(answered - started);
  }
  return { whole, toResult };
}

const PEER = "AI SDK 7 code mode (@ai-sdk/code-mode, Node 22)";

type Side = Record<"fresh" | "freshTool", number[]>;
/** Atrium's side: the whole cycles, the same cycles up to the result, this run's kept steps. */
type AtriumSide = Side & {
  freshToResult: number[];
  freshToolToResult: number[];
  kept: number;
  keptTool: number;
};

function peerRows(peer: Side, atrium: AtriumSide): BenchRow[] {
  const action = median(peer.fresh);
  const toolAction = median(peer.freshTool);
  const withAction = `${PEER}: fresh sandbox + action`;
  const withTool = `${PEER}: fresh sandbox + tool call`;
  return [
    { metric: "code_mode.fresh_action_ms", value: action, unit: "ms" },
    { metric: "code_mode.fresh_tool_action_ms", value: toolAction, unit: "ms" },
    compared("quickjs.fresh_action_ms", median(atrium.fresh), "ms", withAction, action),
    compared("quickjs.fresh_tool_action_ms", median(atrium.freshTool), "ms", withTool, toolAction),
    compared("quickjs.fresh_action_to_result_ms", median(atrium.freshToResult), "ms", withAction, action),
    compared(
      "quickjs.fresh_tool_action_to_result_ms",
      median(atrium.freshToolToResult),
      "ms",
      withTool,
      toolAction,
    ),
    compared("quickjs.kept_step_vs_code_mode_ms", atrium.kept, "ms", withAction, action),
    compared("quickjs.kept_tool_step_vs_code_mode_ms", atrium.keptTool, "ms", withTool, toolAction),
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
  const perRound = ITERATIONS / ROUNDS;
  const atrium = {
    fresh: [] as number[],
    freshTool: [] as number[],
    freshToResult: [] as number[],
    freshToolToResult: [] as number[],
  };
  const peer: Side = { fresh: [], freshTool: [] };
  let peerReport: CodeModePeerReport | undefined;
  let peerMissing: string | undefined;
  for (let round = 0; round < ROUNDS; round++) {
    // Later rounds need less warm-up here (same process); the peer is a new process each round.
    const warmup = round === 0 ? WARMUP : 10;
    const action = await freshSandboxSamples(ACTION, perRound, warmup);
    const toolAction = await freshSandboxSamples(TOOL_ACTION, perRound, warmup);
    atrium.fresh.push(...action.whole);
    atrium.freshToResult.push(...action.toResult);
    atrium.freshTool.push(...toolAction.whole);
    atrium.freshToolToResult.push(...toolAction.toResult);
    if (peerMissing) continue;
    const outcome = runCodeModePeer({ iterations: perRound, warmup: WARMUP });
    if (!outcome.ok) {
      peerMissing = outcome.reason;
      continue;
    }
    peerReport = outcome.report;
    peer.fresh.push(...outcome.report.freshAction.samplesMs);
    peer.freshTool.push(...outcome.report.freshToolAction.samplesMs);
  }
  if (peerMissing || !peerReport) {
    console.log(`code mode peer not measured, its rows are left out: ${peerMissing}`);
    return [
      { metric: "quickjs.fresh_action_ms", value: median(atrium.fresh), unit: "ms" },
      { metric: "quickjs.fresh_tool_action_ms", value: median(atrium.freshTool), unit: "ms" },
      { metric: "quickjs.fresh_action_to_result_ms", value: median(atrium.freshToResult), unit: "ms" },
      {
        metric: "quickjs.fresh_tool_action_to_result_ms",
        value: median(atrium.freshToolToResult),
        unit: "ms",
      },
    ];
  }
  const { versions } = peerReport;
  console.log(
    `code mode peer: @ai-sdk/code-mode ${versions.codeMode}, ai ${versions.ai}, Node ${versions.node}; ${ROUNDS} rounds of ${perRound} actions a side`,
  );
  return peerRows(peer, { ...atrium, kept: kept.stepMs, keptTool: kept.toolStepMs });
}
