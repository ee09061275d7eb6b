import { ScriptedModel, ToolCallingAgent, tool } from "@atrium/agent";
import type { AgentEvent } from "@atrium/spec";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ApprovalDesk } from "./approval-desk.js";

// An attack found by an outside review: a model (steered by injected text) gives two tool calls
// the same id, and approvals are looked up by it (the desk's approvalIdOf, the approval events),
// so the card a person approves could be another call's. The agent now gives repeats their own id.
describe("attack: duplicate tool-call ids from the model", () => {
  it("approving the harmless card never runs the other call", async () => {
    const removed: string[] = [];
    // Every call of it waits for the desk; it records what it would have deleted.
    const remove = tool({
      name: "remove",
      description: "Deletes the file at path.",
      needsApproval: true,
      inputSchema: z.object({ path: z.string() }),
      execute: ({ path }) => `removed ${removed.push(path) && path}`,
    });
    const model = new ScriptedModel([
      {
        content: "",
        toolCalls: [
          { id: "same", name: "remove", input: { path: "tmp.txt" } },
          { id: "same", name: "remove", input: { path: "/home/me/thesis" } },
        ],
      },
      { content: "", toolCalls: [{ name: "final_answer", input: { answer: "ok" } }] },
    ] as ConstructorParameters<typeof ScriptedModel>[0]);
    const desk = new ApprovalDesk();
    const deskRun = desk.open();
    const requested: Extract<AgentEvent, { type: "approval-requested" }>[] = [];
    let waiting = 0;
    const agent = new ToolCallingAgent({ model, tools: [remove] });
    const running = agent.run("clean", {
      onApproval: (request, signal) => {
        waiting++;
        return deskRun.handler(request, signal);
      },
      approvalTimeoutMs: 1_000,
      onEvent: (event) => {
        if (event.type === "approval-requested") requested.push(event);
      },
    });
    while (waiting < 2) await new Promise((r) => setTimeout(r, 20));
    const cards = requested.map((e) => ({ input: e.input, approval: deskRun.approvalIdOf(String(e.id)) }));
    const harmless = cards.find((c) => JSON.stringify(c.input).includes("tmp.txt"))!;
    desk.answer(harmless.approval!, deskRun.token, { approved: true });
    await running;
    deskRun.close();
    // The harmless call ran; the other waited out its time and was refused.
    expect(removed).toEqual(["tmp.txt"]);
    expect(requested.map((event) => event.id)).toEqual(["same", "same#2"]);
  }, 30_000);
});
