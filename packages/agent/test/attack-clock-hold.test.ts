import { describe, expect, it } from "vitest";
import { z } from "zod";
import { QuickJsExecutor } from "../src/executors/index.js";
import { tool } from "../src/tools/index.js";

// ATTACK: while one call waits for a person's approval, the step's clock is held (host watchdog
// cleared, the worker's deadline set to Infinity when it next waits). Guest code is NOT stopped
// meanwhile: it gets a fast answer from another call (here the same guarded tool with invalid
// input: validation fails before approval), the worker takes the "held" clock notice while it
// waits for that, and the code then spins with no deadline for as long as the person takes.
const guarded = tool({
  name: "guarded",
  description: "needs approval",
  inputSchema: z.object({ n: z.number() }),
  needsApproval: true,
  execute: ({ n }) => `ran ${n}`,
});

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
