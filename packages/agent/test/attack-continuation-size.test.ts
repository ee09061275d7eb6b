import { describe, expect, it } from "vitest";
import { CodeAgent } from "../src/agents/index.js";
import { ScriptedModel } from "../src/models/index.js";
import { add, guarded, js, track } from "./support/agents.js";

// Found by an outside review: guest code could make its own run unresumable, since every call's
// raw input went into the journal and the continuation was not capped when saved (past
// MAX_CONTINUATION_CHARS `resume` refused it). Now long inputs are kept as digests, and a run too
// large is refused when it is saved.
describe("attack: a continuation too long to resume", () => {
  it("a suspended run's continuation can always be resumed", async () => {
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
