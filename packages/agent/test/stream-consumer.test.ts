import type { AgentEvent } from "@atrium/spec";
import { describe, expect, it } from "vitest";
import { CodeAgent } from "../src/agents/index.js";
import { ScriptedModel } from "../src/models/index.js";
import { js, shape, track } from "./support/agents.js";

describe("the loop as a generator", () => {
  it("a consumer leaving between steps stops the run before the next model call; onEvent hears the end", async () => {
    const model = new ScriptedModel([js("1"), js("final_answer(2)")]);
    const agent = track(new CodeAgent({ model }));
    const observed: AgentEvent[] = [];
    const yielded: string[] = [];
    for await (const event of agent.stream("Count.", { onEvent: (event) => observed.push(event) })) {
      yielded.push(event.type);
      if (event.type === "step-end") break;
    }
    expect(yielded.at(-1)).toBe("step-end");
    expect(model.calls).toHaveLength(1);
    expect(shape(observed).slice(-3)).toEqual(["step-end", "error", "run-end"]);
    expect(observed.at(-2)).toEqual({
      type: "error",
      step: 1,
      error: {
        name: "AbortError",
        code: "ABORTED",
        message: "the stream's consumer stopped reading",
        isRetryable: false,
        isFatal: true,
      },
    });
    expect(observed.at(-1)).toMatchObject({ type: "run-end", state: "aborted", steps: 1 });
    expect(agent.memory.steps.map((step) => step.type)).toEqual(["task", "action"]);
  });

  it("the agent is free again when run-end is yielded, so the consumer may start the next run", async () => {
    const model = new ScriptedModel([js("final_answer(1)"), js("final_answer(2)")]);
    const agent = track(new CodeAgent({ model }));
    let next: unknown;
    for await (const event of agent.stream("One.")) {
      if (event.type === "run-end") next = (await agent.run("Two.")).output;
    }
    expect(next).toBe(2);
  });

  it("step callbacks run in order with the events, and stream() yields the observation before they finish", async () => {
    const order: string[] = [];
    let release!: () => void;
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    const agent = track(
      new CodeAgent({
        model: new ScriptedModel([js("final_answer(5)")]),
        stepCallbacks: [
          async (step) => {
            order.push(`callback ${step.type}`);
            if (step.type === "action") await released;
          },
        ],
      }),
    );
    for await (const event of agent.stream("Five.")) {
      if (event.type === "model-delta") continue;
      order.push(event.type);
      if (event.type === "observation") release();
    }
    expect(order).toEqual([
      "run-start",
      "step-start",
      "model-output",
      "code",
      "callback action",
      "observation",
      "callback final-answer",
      "step-end",
      "final-answer",
      "run-end",
    ]);
  });
});
