import { describe, expect, it } from "vitest";
import { z } from "zod";
import { CodeAgent } from "../src/agents/index.js";
import { ScriptedModel } from "../src/models/index.js";
import { tool } from "../src/tools/index.js";
import { guarded, js, track } from "./support/agents.js";

// Found by an outside review: a step that starts a call and ends before its outcome comes back
// (the code does not await a slow tool) left a journal entry with no outcome, and resume's replay
// ran that call live again. Now such a call is answered with an error, never run twice.
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
