import { describe, expect, it } from "vitest";
import { z } from "zod";
import { CodeAgent } from "../src/agents/index.js";
import { ScriptedModel } from "../src/models/index.js";
import { tool } from "../src/tools/index.js";
import { add, js, track } from "./support/agents.js";

// Guest code makes its own run unresumable: every call's raw input (before validation) goes into
// the step's journal and so into the continuation, which is not capped when it is saved; past
// MAX_CONTINUATION_CHARS (64 Mi) `resume` refuses it, so the person's later answer is lost.
describe("attack: a continuation too long to resume", () => {
  it("a suspended run's continuation can always be resumed", async () => {
    const guarded = tool({
      name: "guarded",
      description: "needs approval",
      inputSchema: z.object({ n: z.number() }),
      needsApproval: true,
      execute: ({ n }) => `ran ${n}`,
    });
    const bloat = js(
      'const big = "x".repeat(4_900_000);\nfor (let i = 0; i < 4; i++) { try { await add({ a: big, b: 1 }) } catch {} }\n"ok"',
    );
    const key = Buffer.alloc(32, 1);
    const model = new ScriptedModel([bloat, bloat, bloat, js("await guarded({ n: 1 })")]);
    const agent = track(new CodeAgent({ model, tools: [add, guarded], resumable: { key }, maxSteps: 10 }));
    const first = await agent.run("go", { onApproval: () => ({ suspend: true }) });
    expect(first.state).toBe("suspended");
    const other = track(
      new CodeAgent({
        model: new ScriptedModel([js('final_answer("ok")')]),
        tools: [add, guarded],
        resumable: { key },
      }),
    );
    const outcome = await other.resume(first.continuation!, { decision: { approved: true } }).then(
      (r) => r.state,
      (e: Error) => e.message,
    );
    expect(outcome).toBe("success");
  }, 120_000);
});
