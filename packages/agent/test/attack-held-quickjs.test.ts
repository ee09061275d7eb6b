import { describe, expect, it } from "vitest";
import { z } from "zod";
import { QuickJsExecutor } from "../src/executors/index.js";
import { tool } from "../src/tools/index.js";

// Attempts that HELD (these pass): the guarded tool never runs without a yes.
describe("held: QuickJS guest tricks against approvals", () => {
  it("aliases, Promise.all floods, re-entry, calls after the step ended: never run when denied", async () => {
    let ran = 0;
    const guarded = tool({
      name: "guarded",
      description: "needs approval",
      inputSchema: z.object({ n: z.number() }),
      needsApproval: true,
      execute: () => {
        ran++;
        return "ran";
      },
    });
    await using executor = await QuickJsExecutor.create({ tools: [guarded] });
    const deny = () => ({ approved: false as const, reason: "no" });
    const codes = [
      `const g = guarded; const h = globalThis["guarded"].bind(null); await Promise.allSettled([g({n:1}), h({n:2}), Reflect.apply(guarded, null, [{n:3}])]);`,
      `await Promise.allSettled(Array.from({length: 50}, (_, i) => guarded({n: i})));`,
      `await Promise.allSettled([guarded({n:1}).catch(() => guarded({n:2})).catch(() => guarded({n:3}))]);`,
      `Promise.resolve().then(() => Promise.resolve()).then(() => guarded({n: 9}).catch(() => {})); final_answer("early");`,
      `guarded({n: 1}).catch(() => {}); "no await";`,
    ];
    for (const code of codes) {
      await executor.run(code, { onApproval: deny, timeoutMs: 2_000 });
    }
    // a later run with an approving handler must not pick up an earlier run's calls
    await executor.run(`1`, { onApproval: () => ({ approved: true }) });
    await new Promise((r) => setTimeout(r, 200));
    expect(ran).toBe(0);
  }, 60_000);
});
