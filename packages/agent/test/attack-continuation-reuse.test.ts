import { describe, expect, it } from "vitest";
import { z } from "zod";
import { CodeAgent } from "../src/agents/index.js";
import { ScriptedModel } from "../src/models/index.js";
import { tool } from "../src/tools/index.js";
import { js, track } from "./support/agents.js";

// Found by an outside review: a continuation was not single-use and was bound to nothing but the
// key, so the same signed text resumed twice (a log, a queue redelivery, a second click) ran the
// approved call twice. Now a continuation is claimed once, and only by an agent with its tools.
describe("attack: continuation replay", () => {
  it("one approval, resumed twice, runs its call once", async () => {
    const paid: number[] = [];
    const pay = tool({
      name: "pay",
      description: "Pays.",
      inputSchema: z.object({ cents: z.number() }),
      needsApproval: true,
      execute: ({ cents }) => {
        paid.push(cents);
        return "paid";
      },
    });
    const key = Buffer.alloc(32, 5);
    const agent = track(
      new CodeAgent({
        model: new ScriptedModel([js("await pay({ cents: 500 })")]),
        tools: [pay],
        resumable: { key },
      }),
    );
    const first = await agent.run("pay", { onApproval: () => ({ suspend: true }) });
    expect(first.state).toBe("suspended");
    const resumer = () =>
      track(
        new CodeAgent({
          model: new ScriptedModel([js('final_answer("ok")')]),
          tools: [pay],
          resumable: { key },
        }),
      );
    expect((await resumer().resume(first.continuation!, { decision: { approved: true } })).state).toBe(
      "success",
    );
    await expect(resumer().resume(first.continuation!, { decision: { approved: true } })).rejects.toThrow(
      "this continuation was resumed already; a saved run goes on once (save the new continuation a resumed run gives if it suspends again)",
    );
    expect(paid).toEqual([500]);
    // An agent with other tools (same key) cannot take it either.
    const other = track(new CodeAgent({ model: new ScriptedModel([]), tools: [], resumable: { key } }));
    await expect(other.resume(first.continuation!, { decision: { approved: true } })).rejects.toThrow(
      "this agent's tools are not the saved run's (their names or input schemas differ); resume it with the agent that saved it",
    );
  }, 30_000);
});
