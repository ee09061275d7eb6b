import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AgentEvent, ApprovalHandler } from "@atrium/spec";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { CodeAgent, ToolCallingAgent } from "../src/agents/index.js";
import { ScriptedModel } from "../src/models/index.js";
import { tool } from "../src/tools/index.js";
import { js, track } from "./support/agents.js";

/** A tool that deletes a file by name, so every call of it needs a person's yes (for n > 0). */
function remover(deleted: string[]) {
  return tool({
    name: "remove",
    description: "Removes a file.",
    inputSchema: z.object({ path: z.string(), force: z.boolean().default(false) }),
    // The validated input: `force` has its default here.
    needsApproval: (input) => input.force === false,
    execute: ({ path }) => {
      deleted.push(path);
      return `removed ${path}`;
    },
  });
}

const approvalEvents = (events: AgentEvent[]) =>
  events
    .filter((event) => event.type === "approval-requested" || event.type === "approval-resolved")
    .map(({ type, ...rest }) => ({ type, ...rest }));

describe("approvals in a CodeAgent", () => {
  it("asks, emits approval-requested and approval-resolved in the step, then runs the call", async () => {
    const deleted: string[] = [];
    const model = new ScriptedModel([
      js('const out = await remove({ path: "a.txt" });\nconsole.log(out);'),
      js("final_answer(out)"),
    ]);
    const agent = track(new CodeAgent({ model, tools: [remover(deleted)] }));
    const asked: unknown[] = [];
    const events: AgentEvent[] = [];
    const result = await agent.run("Remove a.txt", {
      onEvent: (event) => events.push(event),
      onApproval: (request) => {
        asked.push({ name: request.toolName, input: request.input });
        return { approved: true };
      },
    });
    expect(result.output).toBe("removed a.txt");
    expect(deleted).toEqual(["a.txt"]);
    expect(asked).toEqual([{ name: "remove", input: { path: "a.txt" } }]);
    const [requested, resolved] = approvalEvents(events);
    expect(requested).toMatchObject({
      type: "approval-requested",
      step: 1,
      name: "remove",
      input: { path: "a.txt" },
    });
    expect(resolved).toEqual({
      type: "approval-resolved",
      step: 1,
      id: (requested as { id: string }).id,
      name: "remove",
      approved: true,
    });
    // The call's own events come after its approval, with the same id.
    const call = events.find((event) => event.type === "tool-call");
    expect(call).toMatchObject({ id: (requested as { id: string }).id, name: "remove" });
    expect(events.indexOf(call!)).toBeGreaterThan(
      events.findIndex((event) => event.type === "approval-resolved"),
    );
  });

  it("a denial reaches the code as a catchable error and the model sees the reason; the tool never runs", async () => {
    const deleted: string[] = [];
    const model = new ScriptedModel([
      js('try { await remove({ path: "b.txt" }) } catch (e) { console.log(e.message) }'),
      js('final_answer("kept")'),
    ]);
    const agent = track(new CodeAgent({ model, tools: [remover(deleted)] }));
    const events: AgentEvent[] = [];
    await agent.run("Remove b.txt", {
      onEvent: (event) => events.push(event),
      onApproval: () => ({ approved: false, reason: "b.txt is the budget" }),
    });
    expect(deleted).toEqual([]);
    expect(model.calls[1]!.messages.at(-1)).toEqual({
      role: "user",
      content: 'Observation:\nExecution logs:\nTool "remove" was not approved: b.txt is the budget',
    });
    expect(
      approvalEvents(events).map((event) => [event.type, (event as { approved?: boolean }).approved]),
    ).toEqual([
      ["approval-requested", undefined],
      ["approval-resolved", false],
    ]);
  });

  it("a call whose needsApproval says no runs without asking", async () => {
    const deleted: string[] = [];
    const model = new ScriptedModel([js('final_answer(await remove({ path: "c.txt", force: true }))')]);
    const agent = track(new CodeAgent({ model, tools: [remover(deleted)] }));
    const onApproval: ApprovalHandler = () => {
      throw new Error("must not be asked");
    };
    const result = await agent.run("Remove c.txt", { onApproval });
    expect(result.output).toBe("removed c.txt");
    expect(deleted).toEqual(["c.txt"]);
  });

  it("the agent's own onApproval answers when the run names none, and without any the call is refused", async () => {
    const deleted: string[] = [];
    const script = () => [
      js('let r; try { r = await remove({ path: "d.txt" }) } catch (e) { r = e.message }\nfinal_answer(r)'),
    ];
    const answering = track(
      new CodeAgent({
        model: new ScriptedModel(script()),
        tools: [remover(deleted)],
        onApproval: () => ({ approved: true }),
      }),
    );
    expect((await answering.run("Remove d.txt")).output).toBe("removed d.txt");
    const silent = track(new CodeAgent({ model: new ScriptedModel(script()), tools: [remover(deleted)] }));
    expect((await silent.run("Remove d.txt")).output).toBe(
      'Tool "remove" was not approved: it needs approval and no one was asked (give the run an onApproval handler, or run the CLI with --approve)',
    );
    expect(deleted).toEqual(["d.txt"]);
  });

  it("refuses an approvalTimeoutMs that is not a positive integer", async () => {
    const agent = track(new CodeAgent({ model: new ScriptedModel([js("final_answer(1)")]) }));
    await expect(agent.run("x", { approvalTimeoutMs: 0 })).rejects.toThrow(/approvalTimeoutMs/);
  });
});

describe("approvals in a ToolCallingAgent", () => {
  it("asks before a native tool call runs, and a denial is the call's observation", async () => {
    const deleted: string[] = [];
    const model = new ScriptedModel([
      { content: "", toolCalls: [{ name: "remove", input: { path: "e.txt" } }] },
      { content: "", toolCalls: [{ name: "remove", input: { path: "f.txt" } }] },
      { content: "", toolCalls: [{ name: "final_answer", input: { answer: "one" } }] },
    ]);
    const agent = track(new ToolCallingAgent({ model, tools: [remover(deleted)] }));
    const events: AgentEvent[] = [];
    const result = await agent.run("Remove e and f", {
      onEvent: (event) => events.push(event),
      onApproval: (request) =>
        (request.input as { path: string }).path === "e.txt"
          ? { approved: true }
          : { approved: false, reason: "not f" },
    });
    expect(result.output).toBe("one");
    expect(deleted).toEqual(["e.txt"]);
    const second = result.steps.filter((step) => step.type === "action")[1] as {
      toolCalls?: { observation: string; isError: boolean }[];
    };
    expect(second.toolCalls?.map((call) => [call.observation, call.isError])).toEqual([
      ['Error: Tool "remove" was not approved: not f', true],
    ]);
    expect(approvalEvents(events).map((event) => [event.type, event.step])).toEqual([
      ["approval-requested", 1],
      ["approval-resolved", 1],
      ["approval-requested", 2],
      ["approval-resolved", 2],
    ]);
  });
});

describe("suspending a run", () => {
  const keyFile = () => join(mkdtempSync(join(tmpdir(), "atrium-suspend-")), "continuation.key");

  it("ends in state suspended with a continuation, and no error event", async () => {
    const deleted: string[] = [];
    const model = new ScriptedModel([js('await remove({ path: "g.txt" })')]);
    const agent = track(
      new CodeAgent({ model, tools: [remover(deleted)], resumable: { keyFile: keyFile() } }),
    );
    const events: AgentEvent[] = [];
    const result = await agent.run("Remove g.txt", {
      onEvent: (event) => events.push(event),
      onApproval: () => ({ suspend: true }),
    });
    expect(result.state).toBe("suspended");
    expect(result.continuation).toMatch(/^atrium-run\.1\./);
    expect(deleted).toEqual([]);
    expect(events.map((event) => event.type)).toEqual([
      "run-start",
      "step-start",
      "model-output",
      "code",
      "approval-requested",
      "run-end",
    ]);
    expect(events.at(-1)).toMatchObject({ type: "run-end", state: "suspended", steps: 0 });
  });

  it("an agent that cannot save its runs fails the run saying how to make it resumable", async () => {
    const model = new ScriptedModel([js('await remove({ path: "h.txt" })')]);
    const agent = track(new CodeAgent({ model, tools: [remover([])] }));
    await expect(agent.run("Remove h.txt", { onApproval: () => ({ suspend: true }) })).rejects.toThrow(
      "onApproval answered { suspend: true }, but this agent cannot save its runs; a CodeAgent can, given `resumable: { keyFile }` (or { key })",
    );
  });

  it("resume refuses a missing decision, and an agent without a key", async () => {
    const model = new ScriptedModel([]);
    const resumable = track(new CodeAgent({ model, resumable: { keyFile: keyFile() } }));
    await expect(resumable.resume("atrium-run.1.e30.x", {} as never)).rejects.toThrow(
      "resume(continuation, { decision }): decision must be { approved: true } or { approved: false, reason? }",
    );
    const plain = track(new CodeAgent({ model }));
    await expect(plain.resume("atrium-run.1.e30.x", { decision: { approved: true } })).rejects.toThrow(
      "this CodeAgent cannot resume runs; give it `resumable: { keyFile }` (or { key }), the one the run was saved with",
    );
    await expect(resumable.resume("not a continuation", { decision: { approved: true } })).rejects.toThrow(
      "this is not an Atrium continuation (it should start with atrium-run.1.)",
    );
  });

  it("a key given as bytes must be at least 32 of them", async () => {
    const agent = track(new CodeAgent({ model: new ScriptedModel([]), resumable: { key: "short" } }));
    await expect(agent.resume("atrium-run.1.e30.x", { decision: { approved: true } })).rejects.toThrow(
      "the continuation key is 5 bytes; use at least 32 random bytes (e.g. crypto.randomBytes(32))",
    );
  });
});
