import { describe, expect, it } from "vitest";
import { QuickJsExecutor } from "../src/executors/index.js";
import { guarded } from "./support/agents.js";

// Found by an outside review: the step's clock was held for a person's approval (the worker's
// deadline set to Infinity) while guest code could still run: it got a fast answer from another
// call (here the guarded tool with invalid input, refused before any approval) and then spun for
// as long as the person took. Now only the sandbox's idle waiting is added back to the deadline.

describe("attack: compute while an approval waits", () => {
  it("a 300 ms step must not run guest code for seconds while a person decides", async () => {
    await using executor = await QuickJsExecutor.create({ tools: [guarded] });
    const code = `
      const pending = guarded({ n: 1 }).catch(() => "denied");
      try { await guarded({ n: "not a number" }); } catch {}
      const t0 = Date.now(); let spins = 0;
      while (Date.now() - t0 < 4000) { spins++; }
      "spun " + (Date.now() - t0) + " ms";
    `;
    const started = Date.now();
    const result = await executor.run(code, {
      timeoutMs: 300,
      // a person who takes 5 s to say no
      onApproval: () =>
        new Promise((resolve) => setTimeout(() => resolve({ approved: false, reason: "no" }), 5000)),
    });
    const elapsed = Date.now() - started;
    // The time limit holds: a timeout, long before the code's 4 s of spinning or the person's 5 s.
    expect(result.error?.kind).toBe("timeout");
    expect(elapsed).toBeLessThan(3_000);
  }, 20_000);
});
