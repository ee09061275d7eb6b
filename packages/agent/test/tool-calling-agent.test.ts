import { type AgentEvent, ModelError, richToolResult } from "@atrium/spec";
import { PIXEL_PNG } from "@atrium/spec/testing";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { type ActionStep, ToolCallingAgent } from "../src/agents/index.js";
import { DEFAULT_AGENT_LOOP_LIMITS } from "../src/limits.js";
import { ScriptedModel } from "../src/models/index.js";
import { tool } from "../src/tools/index.js";

/** A lookup tool whose calls finish only once `parallel` of them have started (or 2 s passed). */
function barrierLookup(parallel: number) {
  const log: string[] = [];
  let started = 0;
  let release: () => void = () => {};
  const allStarted = new Promise<void>((resolve) => {
    release = resolve;
  });
  const lookup = tool({
    name: "lookup",
    description: "Looks a key up.",
    inputSchema: z.object({ key: z.string() }),
    async execute({ key }) {
      log.push(`start ${key}`);
      if (++started === parallel) release();
      await Promise.race([allStarted, new Promise((resolve) => setTimeout(resolve, 2_000))]);
      log.push(`end ${key}`);
      return `value of ${key}`;
    },
  });
  return { lookup, log };
}

describe("ToolCallingAgent", () => {
  it("runs the tool calls of one step in parallel and returns results in call order", async () => {
    const { lookup, log } = barrierLookup(2);
    const model = new ScriptedModel([
      {
        content: "",
        toolCalls: [
          { name: "lookup", input: { key: "b" } },
          { name: "lookup", input: { key: "a" } },
        ],
      },
      { content: "", toolCalls: [{ name: "final_answer", input: { answer: "a and b" } }] },
    ]);
    const agent = new ToolCallingAgent({ model, tools: [lookup] });
    const result = await agent.run("Look up a and b.");

    expect(result.state).toBe("success");
    expect(result.output).toBe("a and b");
    expect(result.stepCount).toBe(2);
    expect(log).toEqual(["start b", "start a", "end b", "end a"]);
    expect(model.calls[1]!.messages.slice(2)).toEqual([
      {
        role: "assistant",
        content: "",
        toolCalls: [
          { id: "call_1_1", name: "lookup", input: { key: "b" } },
          { id: "call_1_2", name: "lookup", input: { key: "a" } },
        ],
      },
      {
        role: "tool",
        toolCallId: "call_1_1",
        toolName: "lookup",
        content: [{ type: "text", text: "value of b" }],
      },
      {
        role: "tool",
        toolCallId: "call_1_2",
        toolName: "lookup",
        content: [{ type: "text", text: "value of a" }],
      },
    ]);
    expect(model.calls[0]!.options.toolChoice).toBe("required");
    expect(model.calls[0]!.options.tools!.map((spec) => spec.name)).toEqual(["lookup", "final_answer"]);
  });

  it("refuses final_answer mixed with other calls, runs none of them, and continues", async () => {
    const { lookup, log } = barrierLookup(1);
    const model = new ScriptedModel([
      {
        content: "",
        toolCalls: [
          { name: "lookup", input: { key: "a" } },
          { name: "final_answer", input: { answer: "guess" } },
        ],
      },
      { content: "", toolCalls: [{ name: "final_answer", input: { answer: "checked" } }] },
    ]);
    const agent = new ToolCallingAgent({ model, tools: [lookup] });
    const result = await agent.run("Look up a.");

    expect(log).toEqual([]);
    expect(result.output).toBe("checked");
    const first = result.steps[1] as ActionStep;
    const refusal =
      "Error: final_answer must be the only tool call of its step; none of these calls ran. Call the other tools first, then final_answer alone.";
    expect(first.observation).toBe(refusal);
    expect(first.isFinalAnswer).toBe(false);
    expect(first.error?.code).toBe("PARSE");
    expect(first.toolCalls!.map((call) => [call.name, call.observation, call.isError])).toEqual([
      ["lookup", refusal, true],
      ["final_answer", refusal, true],
    ]);
  });

  it("turns a tool input validation error into an observation naming the field", async () => {
    const { lookup } = barrierLookup(1);
    const model = new ScriptedModel([
      { content: "", toolCalls: [{ name: "lookup", input: { key: 5 } }] },
      { content: "", toolCalls: [{ name: "nope", input: {} }] },
      { content: "", toolCalls: [{ name: "final_answer", input: { answer: "done" } }] },
    ]);
    const events: AgentEvent[] = [];
    const agent = new ToolCallingAgent({ model, tools: [lookup] });
    const result = await agent.run("Look up 5.", { onEvent: (event) => events.push(event) });

    const [, first, second] = result.steps as ActionStep[];
    expect(first!.observation).toBe(
      "lookup (call_1_1):\nError: invalid input for tool lookup: key: Invalid input: expected string, received number",
    );
    expect(first!.error?.code).toBe("TOOL");
    expect(second!.observation).toBe(
      "nope (call_2_1):\nError: unknown tool nope; the tools are: lookup, final_answer",
    );
    expect(events.filter((event) => event.type === "tool-result")).toEqual([
      {
        type: "tool-result",
        step: 1,
        id: "call_1_1",
        name: "lookup",
        output: undefined,
        error: "invalid input for tool lookup: key: Invalid input: expected string, received number",
      },
    ]);
  });

  it("answers a reply without tool calls with an observation that says what to do", async () => {
    const model = new ScriptedModel([
      "I think the answer is 4.",
      { content: "", toolCalls: [{ name: "final_answer", input: { answer: 4 } }] },
    ]);
    const result = await new ToolCallingAgent({ model }).run("2+2?");
    expect((result.steps[1] as ActionStep).observation).toBe(
      "Error: you called no tool. Call one or more tools, or final_answer alone with the answer.",
    );
    expect(model.calls[1]!.messages.slice(-2)).toEqual([
      { role: "assistant", content: "I think the answer is 4." },
      {
        role: "user",
        content:
          "Observation:\nError: you called no tool. Call one or more tools, or final_answer alone with the answer.",
      },
    ]);
    expect(result.output).toBe(4);
  });
});

describe("fatal errors", () => {
  it("end the run: run() rejects with the error, or resolves with state error when asked not to throw", async () => {
    const failure = new ModelError("provider said 400: bad request", { status: 400 });
    const events: AgentEvent[] = [];
    const agent = new ToolCallingAgent({ model: new ScriptedModel([failure, failure]) });
    await expect(agent.run("Fail.")).rejects.toBe(failure);

    const result = await agent.run("Fail again.", {
      throwOnError: false,
      onEvent: (event) => events.push(event),
    });
    expect(result.state).toBe("error");
    expect(result.error).toEqual({
      name: "ModelError",
      code: "MODEL",
      message: "provider said 400: bad request",
      isRetryable: false,
      isFatal: true,
    });
    expect(events.map((event) => event.type)).toEqual(["run-start", "step-start", "error", "run-end"]);
    expect(result.steps.map((step) => step.type)).toEqual(["task"]);
  });

  it("refuses a second concurrent run of the same agent", async () => {
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const model = new ScriptedModel(async () => {
      await gate;
      return { content: "", toolCalls: [{ name: "final_answer", input: { answer: 1 } }] };
    });
    const agent = new ToolCallingAgent({ model });
    const first = agent.run("One.");
    await expect(agent.run("Two.")).rejects.toThrow(
      "this agent is already running; use agent.asTool() or create another agent for concurrent runs",
    );
    release();
    expect((await first).output).toBe(1);
  });
});

describe("ToolCallingAgent images", () => {
  it("sends images returned by a tool in a user message after the tool results", async () => {
    const snap = tool({
      name: "snap",
      description: "Takes a picture.",
      inputSchema: z.object({}),
      execute: () => richToolResult("took one", [PIXEL_PNG]),
    });
    const model = new ScriptedModel([
      { content: "", toolCalls: [{ name: "snap", input: {} }] },
      { content: "", toolCalls: [{ name: "final_answer", input: { answer: "a pixel" } }] },
    ]);
    await new ToolCallingAgent({ model, tools: [snap] }).run("What do you see?");
    expect(model.calls[1]!.messages.slice(-2)).toEqual([
      {
        role: "tool",
        toolCallId: "call_1_1",
        toolName: "snap",
        content: [{ type: "text", text: "took one" }],
      },
      {
        role: "user",
        content: [
          { type: "text", text: "Images returned by the tools:" },
          { type: "image", image: PIXEL_PNG.image, mediaType: "image/png" },
        ],
      },
    ]);
  });
});

describe("ToolCallingAgent observations", () => {
  it("cut a long tool error, and the results of one step together, at maxObservationChars", async () => {
    const shout = tool({
      name: "shout",
      description: "Repeats a letter.",
      inputSchema: z.object({ letter: z.string(), fail: z.boolean() }),
      async execute({ letter, fail }) {
        if (fail) throw new Error(letter.repeat(200));
        return letter.repeat(200);
      },
    });
    const model = new ScriptedModel([
      { content: "", toolCalls: [{ name: "shout", input: { letter: "e", fail: true } }] },
      {
        content: "",
        toolCalls: [
          { name: "shout", input: { letter: "a", fail: false } },
          { name: "shout", input: { letter: "b", fail: false } },
        ],
      },
      { content: "", toolCalls: [{ name: "final_answer", input: { answer: "z".repeat(200) } }] },
    ]);
    const agent = new ToolCallingAgent({ model, tools: [shout], maxObservationChars: 100 });
    const result = await agent.run("Shout.");
    const [, failed, both] = result.steps as ActionStep[];
    const cut = (chars: number) =>
      `\n[… ${chars} characters cut from the middle; print less, or slice what you need …]\n`;
    expect(failed!.toolCalls![0]!.observation).toBe(`Error: ${"e".repeat(43)}${cut(107)}${"e".repeat(50)}`);
    expect(both!.toolCalls!.map((call) => call.observation)).toEqual([
      `${"a".repeat(50)}${cut(100)}${"a".repeat(50)}`,
      `${"b".repeat(50)}${cut(100)}${"b".repeat(50)}`,
    ]);
    expect(both!.observation).toBe(`shout (call_2_1):\n${"a".repeat(32)}${cut(294)}${"b".repeat(50)}`);
    // The answer itself is the run's output, whole; only its observation is cut.
    expect(result.output).toBe("z".repeat(200));
    expect((result.steps[3] as ActionStep).observation).toBe(
      `final_answer was called with:\n${"z".repeat(20)}${cut(130)}${"z".repeat(50)}`,
    );
  });
});

describe("step images", () => {
  it("keep at most maxStepImages images of known type, and tell the model what was left out", async () => {
    const odd = tool({
      name: "odd",
      description: "Returns bytes that are no image.",
      inputSchema: z.object({}),
      execute: () => richToolResult("took one", [{ type: "image", image: new Uint8Array([1, 2, 3]) }]),
    });
    const snap = tool({
      name: "snap",
      description: "Takes ten pictures.",
      inputSchema: z.object({}),
      execute: () =>
        richToolResult(
          "took ten",
          Array.from({ length: 10 }, () => PIXEL_PNG),
        ),
    });
    const model = new ScriptedModel([
      {
        content: "",
        toolCalls: [
          { name: "odd", input: {} },
          { name: "snap", input: {} },
        ],
      },
      { content: "", toolCalls: [{ name: "final_answer", input: { answer: "pixels" } }] },
    ]);
    const result = await new ToolCallingAgent({ model, tools: [odd, snap] }).run("Look.");
    const step = result.steps[1] as ActionStep;
    expect(DEFAULT_AGENT_LOOP_LIMITS.maxStepImages).toBe(8);
    expect(step.observation).toBe(
      "odd (call_1_1):\ntook one\n\nsnap (call_1_2):\ntook ten\n[Images left out: an image without a media type; 3 images beyond the 8 a step may add.]",
    );
    expect(step.images).toEqual(
      Array.from({ length: 7 }, () => ({ type: "image", image: PIXEL_PNG.image, mediaType: "image/png" })),
    );
  });
});
