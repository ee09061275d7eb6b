import { describe, expect, it } from "vitest";
import { z } from "zod";
import { CodeAgent } from "../src/agents/index.js";
import { ScriptedModel } from "../src/models/index.js";
import { tool } from "../src/tools/index.js";
import { js, track } from "./support/agents.js";

// ATTACK: SECURITY.md says "a replay never runs a recorded tool call again". A step that starts
// a call and ends before its outcome comes back leaves a journal entry with no outcome; resume's
// replay of that step runs the call live again (journalCall: a record without outcome runs).
// Guest code chooses this: it just does not await a slow side-effecting tool.
describe("attack: resume re-runs a recorded call", () => {
  it("a tool with side effects runs once, not again on resume", async () => {
    const sent: string[] = [];
    const send = tool({
      name: "send",
      description: "Sends a payment (no approval declared; think: an idempotence the host relies on).",
      inputSchema: z.object({ to: z.string() }),
      execute: async ({ to }) => {
        sent.push(to);
        await new Promise((r) => setTimeout(r, 300));
        return "sent";
      },
    });
    const guarded = tool({
      name: "guarded",
      description: "needs approval",
      inputSchema: z.object({ n: z.number() }),
      needsApproval: true,
      execute: ({ n }) => `ran ${n}`,
    });
    const key = Buffer.alloc(32, 3);
    const model = new ScriptedModel([
      js('send({ to: "mallory" }); "started";'),
      js("const r = await guarded({ n: 1 });\nconsole.log(r);"),
      js('final_answer("done")'),
    ]);
    const agent = track(new CodeAgent({ model, tools: [send, guarded], resumable: { key } }));
    const first = await agent.run("pay", { onApproval: () => ({ suspend: true }) });
    expect(first.state).toBe("suspended");
    await new Promise((r) => setTimeout(r, 400));
    expect(sent).toEqual(["mallory"]);
    const model2 = new ScriptedModel([js('final_answer("done")')]);
    const other = track(new CodeAgent({ model: model2, tools: [send, guarded], resumable: { key } }));
    await other.resume(first.continuation!, { decision: { approved: true } });
    await new Promise((r) => setTimeout(r, 400));
    expect(sent).toEqual(["mallory"]);
  }, 30_000);
});
