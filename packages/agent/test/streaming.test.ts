import type { AgentEvent } from "@atrium/spec";
import { describe, expect, it } from "vitest";
import { CodeAgent } from "../src/agents/index.js";
import { ScriptedModel } from "../src/models/index.js";
import { add, js, shape, track } from "./support/agents.js";

/** The events of SCRIPT's first step, up to its tool's result. */
const UNTIL_TOOL_RESULT = [
  "run-start",
  "step-start",
  "model-delta",
  "model-output",
  "code",
  "tool-call",
  "tool-result",
];
const SCRIPT = [js("const s = await add({ a: 1, b: 2 });\nconsole.log(s);"), js("final_answer(s)")];

describe("streaming", () => {
  it("yields events in order, with model output as deltas that add up to the reply", async () => {
    const agent = track(new CodeAgent({ model: new ScriptedModel(SCRIPT), tools: [add] }));
    const events: AgentEvent[] = [];
    for await (const event of agent.stream("Add 1 and 2.")) events.push(event);

    expect(shape(events)).toEqual([
      ...UNTIL_TOOL_RESULT,
      "observation",
      "step-end",
      "step-start",
      "model-delta",
      "model-output",
      "code",
      "observation",
      "step-end",
      "final-answer",
      "run-end",
    ]);
    const deltas = events
      .filter((e) => e.type === "model-delta" && e.step === 1)
      .map((e) => (e as { text: string }).text);
    expect(deltas.join("")).toBe(SCRIPT[0]);
    expect(events.find((e) => e.type === "code")).toEqual({
      type: "code",
      step: 1,
      language: "javascript",
      code: "const s = await add({ a: 1, b: 2 });\nconsole.log(s);",
    });
    expect(events.filter((e) => e.type === "tool-call" || e.type === "tool-result")).toEqual([
      { type: "tool-call", step: 1, id: expect.any(String), name: "add", input: { a: 1, b: 2 } },
      { type: "tool-result", step: 1, id: expect.any(String), name: "add", output: 3 },
    ]);
    expect(events.find((e) => e.type === "observation")).toEqual({
      type: "observation",
      step: 1,
      text: "Execution logs:\n3",
    });
    expect(events.at(-2)).toEqual({ type: "final-answer", step: 2, output: 3 });
    expect(events.at(-1)).toMatchObject({ type: "run-end", state: "success", output: 3, steps: 2 });
  });

  it("run() reports the same events through onEvent: without deltas, or with them when streamModel is set", async () => {
    const streamed: AgentEvent[] = [];
    const streamer = track(new CodeAgent({ model: new ScriptedModel(SCRIPT), tools: [add] }));
    for await (const event of streamer.stream("Add 1 and 2.")) streamed.push(event);

    const plain: AgentEvent[] = [];
    const agent = track(new CodeAgent({ model: new ScriptedModel(SCRIPT), tools: [add] }));
    await agent.run("Add 1 and 2.", { onEvent: (event) => plain.push(event) });
    expect(shape(plain)).toEqual(shape(streamed).filter((type) => type !== "model-delta"));

    const withDeltas: AgentEvent[] = [];
    const again = track(new CodeAgent({ model: new ScriptedModel(SCRIPT), tools: [add] }));
    await again.run("Add 1 and 2.", { streamModel: true, onEvent: (event) => withDeltas.push(event) });
    expect(shape(withDeltas)).toEqual(shape(streamed));
  });

  it("stops the run when the consumer leaves the loop, and the agent can run again", async () => {
    const model = new ScriptedModel((_messages, _options, call) =>
      call === 0 ? SCRIPT[0]! : js("final_answer(9)"),
    );
    const agent = track(new CodeAgent({ model, tools: [add] }));
    const seen: string[] = [];
    for await (const event of agent.stream("Add.")) {
      seen.push(event.type);
      if (event.type === "code") break;
    }
    expect(seen.at(-1)).toBe("code");
    expect(model.calls).toHaveLength(1);
    expect((await agent.run("Again.")).output).toBe(9);
  });
});

describe("event observers", () => {
  it("an exception thrown by onEvent stops the run and run() rejects with it", async () => {
    const model = new ScriptedModel([js("1"), js("final_answer(2)")]);
    const agent = track(new CodeAgent({ model }));
    const broken = new Error("observer bug");
    const seen: string[] = [];
    const outcome = await agent
      .run("Count.", {
        onEvent: (event) => {
          seen.push(event.type);
          if (event.type === "step-end") throw broken;
        },
      })
      .catch((error: unknown) => error);
    expect(outcome).toBe(broken);
    expect(seen.at(-1)).toBe("step-end");
    expect(model.calls).toHaveLength(1);
    expect((await agent.run("Again.", { onEvent: () => {} })).output).toBe(2);
  });

  it("onEvent throwing during a tool call aborts the run; the model never sees it as a tool error", async () => {
    const model = new ScriptedModel([SCRIPT[0]!, js("final_answer(7)")]);
    const agent = track(new CodeAgent({ model, tools: [add] }));
    const broken = new Error("observer bug");
    const seen: string[] = [];
    const outcome = await agent
      .run("Add.", {
        throwOnError: false,
        onEvent: (event) => {
          seen.push(event.type);
          if (event.type === "tool-call") throw broken;
        },
      })
      .catch((error: unknown) => error);
    expect(outcome).toBe(broken);
    expect(seen).toEqual(["run-start", "step-start", "model-output", "code", "tool-call"]);
    expect(model.calls).toHaveLength(1);
    expect(agent.memory.steps.map((step) => step.type)).toEqual(["task"]);
    // The sandbox was interrupted cleanly: the same agent runs the next task.
    expect((await agent.run("Again.")).output).toBe(7);
  });

  it("stream(): onEvent throwing yields the rest of the run, naming the callback, then throws its error", async () => {
    const model = new ScriptedModel([SCRIPT[0]!, js("final_answer(7)")]);
    const agent = track(new CodeAgent({ model, tools: [add] }));
    const broken = new Error("observer bug");
    let calls = 0;
    const events: AgentEvent[] = [];
    const outcome = await (async () => {
      const onEvent = (event: AgentEvent) => {
        calls++;
        if (event.type === "tool-call") throw broken;
      };
      for await (const event of agent.stream("Add.", { onEvent })) events.push(event);
    })().catch((error: unknown) => error);

    expect(outcome).toBe(broken);
    expect(shape(events)).toEqual([...UNTIL_TOOL_RESULT, "error", "run-end"]);
    expect(calls).toBe(events.findIndex((event) => event.type === "tool-call") + 1);
    expect(events.at(-2)).toEqual({
      type: "error",
      step: 1,
      error: {
        name: "AbortError",
        code: "ABORTED",
        message: "the onEvent callback threw on a tool-call event: observer bug",
        isRetryable: false,
        isFatal: true,
      },
    });
    expect(events.at(-1)).toMatchObject({ type: "run-end", state: "aborted", steps: 0 });
    expect(model.calls).toHaveLength(1);

    const again: AgentEvent[] = [];
    for await (const event of agent.stream("Again.")) again.push(event);
    expect(again.at(-1)).toMatchObject({ type: "run-end", state: "success", output: 7 });
  });

  it("stream(): onEvent throwing on run-end still surfaces, after every event was yielded", async () => {
    const agent = track(new CodeAgent({ model: new ScriptedModel([js("final_answer(1)")]) }));
    const broken = new Error("late observer bug");
    const types: string[] = [];
    const onEvent = (event: AgentEvent) => {
      if (event.type === "run-end") throw broken;
    };
    const outcome = await (async () => {
      for await (const event of agent.stream("One.", { onEvent })) types.push(event.type);
    })().catch((error: unknown) => error);
    expect(outcome).toBe(broken);
    expect(types.slice(-2)).toEqual(["final-answer", "run-end"]);
  });
});
