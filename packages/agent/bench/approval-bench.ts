/**
 * What an approval adds to a tool call, without the person: a tool step in a kept QuickJS
 * sandbox whose tool needs approval and a handler that answers at once, against the same step
 * with a tool that needs none. The two alternate step by step, so load on the machine falls on
 * both; each row is the median of its samples, and the overhead is the difference of the medians.
 */
import { type BenchRow, compared, median } from "@atrium/bench";
import type { Tool } from "@atrium/spec";
import { QuickJsExecutor } from "../src/executors/index.js";
import { addTool } from "./add-tool.js";

const ITERATIONS = 400;
const WARMUP = 200;

/** `add`, but every call waits for an approval. */
const guardedAdd: Tool<{ a: number; b: number }, number> = {
  ...addTool,
  name: "guarded_add",
  needsApproval: true,
};

export async function benchApprovals(): Promise<BenchRow[]> {
  const executor = await QuickJsExecutor.create({ tools: [addTool, guardedAdd] });
  const approve = () => ({ approved: true as const });
  const plain: number[] = [];
  const approved: number[] = [];
  try {
    for (let i = 0; i < WARMUP + ITERATIONS; i++) {
      let started = performance.now();
      const a = await executor.run("await add({ a: 1, b: 2 })");
      const plainMs = performance.now() - started;
      started = performance.now();
      const b = await executor.run("await guarded_add({ a: 1, b: 2 })", { onApproval: approve });
      const approvedMs = performance.now() - started;
      if (a.output !== 3 || b.output !== 3) {
        throw new Error(
          `the approval bench's steps gave ${JSON.stringify([a.output, b.output])}, not [3, 3]`,
        );
      }
      if (i < WARMUP) continue;
      plain.push(plainMs);
      approved.push(approvedMs);
    }
  } finally {
    await executor.close();
  }
  const plainMs = median(plain);
  const approvedMs = median(approved);
  const baseline = "the same tool step, its tool needing no approval";
  return [
    compared("quickjs.approved_tool_step_ms", approvedMs, "ms", baseline, plainMs),
    { metric: "quickjs.approval_overhead_ms", value: approvedMs - plainMs, unit: "ms" },
  ];
}
