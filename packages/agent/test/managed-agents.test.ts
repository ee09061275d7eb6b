import type { AgentEvent, Message } from "@atrium/spec";
import { textOf } from "@atrium/spec";
import { describe, expect, it } from "vitest";
import { CodeAgent, ToolCallingAgent } from "../src/agents/index.js";
import { ScriptedModel } from "../src/models/index.js";
import { managedAgentTask } from "../src/prompts/loop-prompts.js";
import { js, track } from "./support/agents.js";

/** The fruit named in the sub-agent's task message. */
function fruitOf(messages: Message[]): string {
  const task = textOf((messages[1] as { content: string }).content);
  return /count (\w+)/.exec(task)![1]!;
}

/**
 * A managed agent whose step 1 records the fruit of its task in a sandbox global and whose step
 * 2 answers with everything recorded: a sandbox shared between calls would list both fruits.
 */
function fruitCounter() {
  const workerModel = new ScriptedModel((messages) =>
    messages.length === 2
      ? js(
          `globalThis.seen = (globalThis.seen ?? []).concat(${JSON.stringify(fruitOf(messages))});\nseen.length`,
        )
      : js(`final_answer("${fruitOf(messages)}: " + seen.join(","))`),
  );
  const worker = new CodeAgent({
    model: workerModel,
    name: "counter",
    description: "Counts one kind of fruit.",
  });
  return { worker, workerModel };
}

describe("managed agents", () => {
  it("run in parallel, each call on a fresh sandbox and memory", async () => {
    const { worker, workerModel } = fruitCounter();
    const manager = track(
      new ToolCallingAgent({
        model: new ScriptedModel([
          {
            content: "",
            toolCalls: [
              { name: "counter", input: { task: "count apples" } },
              { name: "counter", input: { task: "count pears" } },
            ],
          },
          { content: "", toolCalls: [{ name: "final_answer", input: { answer: "done" } }] },
        ]),
        tools: [worker.asTool()],
      }),
    );
    const events: AgentEvent[] = [];
    const result = await manager.run("Count apples and pears at the same time.", {
      onEvent: (event) => events.push(event),
    });

    expect(result.output).toBe("done");
    const [, step] = result.steps;
    expect(step).toMatchObject({
      type: "action",
      toolCalls: [
        { name: "counter", observation: "apples: apples", isError: false },
        { name: "counter", observation: "pears: pears", isError: false },
      ],
    });
    expect(workerModel.calls).toHaveLength(4);
    const tasks = workerModel.calls
      .filter((call) => call.messages.length === 2)
      .map((call) => call.messages[1])
      .sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
    // Both calls are in flight at once, so which reaches the model first varies.
    expect(tasks).toEqual([
      { role: "user", content: `New task:\n${managedAgentTask("counter", "count apples")}` },
      { role: "user", content: `New task:\n${managedAgentTask("counter", "count pears")}` },
    ]);
    const progress = events.flatMap((event) => (event.type === "tool-progress" ? [event.progress] : []));
    expect(progress.map((p) => p.message).sort()).toEqual([
      "counter: step 1 done",
      "counter: step 1 done",
      "counter: step 2 done",
      "counter: step 2 done",
    ]);
    expect(progress[0]!.total).toBe(20);
    // The worker itself was never run: its own memory is untouched.
    expect(worker.memory.steps).toEqual([]);
  });

  it("can be called from a CodeAgent's code, in parallel with Promise.all", async () => {
    const { worker } = fruitCounter();
    const manager = track(
      new CodeAgent({
        model: new ScriptedModel([
          js(
            'const answers = await Promise.all([counter({ task: "count apples" }), counter({ task: "count pears" })]);\nfinal_answer(answers);',
          ),
        ]),
        tools: [worker.asTool()],
      }),
    );
    const result = await manager.run("Count apples and pears.");
    expect(result.output).toEqual(["apples: apples", "pears: pears"]);
    expect(manager.memory.steps[0]).toEqual({ type: "task", task: "Count apples and pears." });
  });

  it("needs a name and a description, and an executor factory rather than an instance", async () => {
    const model = new ScriptedModel([]);
    expect(() => new CodeAgent({ model }).asTool()).toThrow("asTool() needs a name and a description");
    const { QuickJsExecutor } = await import("../src/executors/index.js");
    const executor = await QuickJsExecutor.create();
    try {
      expect(() => new CodeAgent({ model, executor, name: "a", description: "b" }).asTool()).toThrow(
        "this CodeAgent was given one executor instance, which parallel managed-agent calls would share",
      );
    } finally {
      await executor.close();
    }
  });
});
