import { AbortError, type AgentEvent } from "@atrium/spec";
import { describe, expect, it } from "vitest";
import { type ActionStep, CodeAgent, type MemoryStep } from "../src/agents/index.js";
import { QuickJsExecutor } from "../src/executors/index.js";
import { ScriptedModel } from "../src/models/index.js";
import { closingPrompt, END_PLAN, initialPlanPrompt, updatePlanPrompt } from "../src/prompts/loop-prompts.js";
import { add, js, lastText, shape, track } from "./support/agents.js";

const RETRY = "Fix the code and try again; do not repeat the same mistake.";

function actions(steps: MemoryStep[]): ActionStep[] {
  return steps.filter((step): step is ActionStep => step.type === "action");
}

describe("CodeAgent with QuickJS", () => {
  it("answers in two steps: a tool call, then final_answer with a value computed from it", async () => {
    const model = new ScriptedModel([
      js("const sum = await add({ a: 2, b: 3 });\nconsole.log(sum);"),
      js("final_answer(sum * 2)"),
    ]);
    const agent = track(new CodeAgent({ model, tools: [add] }));
    const result = await agent.run("What is (2 + 3) * 2?");

    expect(result.state).toBe("success");
    expect(result.output).toBe(10);
    expect(result.stepCount).toBe(2);
    expect(result.steps.map((step) => step.type)).toEqual(["task", "action", "action", "final-answer"]);
    expect(model.calls).toHaveLength(2);
    expect(model.calls[1]!.messages.slice(1)).toEqual([
      { role: "user", content: "New task:\nWhat is (2 + 3) * 2?" },
      { role: "assistant", content: js("const sum = await add({ a: 2, b: 3 });\nconsole.log(sum);") },
      { role: "user", content: "Observation:\nExecution logs:\n5" },
    ]);
    expect(model.calls[0]!.options.stopSequences).toEqual(["\n```\n", "\nObservation:"]);
    expect(result.usage.inputTokens).toBe(
      model.calls.reduce((sum, _call, i) => sum + (result.steps[i + 1] as ActionStep).usage.inputTokens, 0),
    );
  });

  it("shows a runtime error with the failing line and its text, then recovers", async () => {
    const model = new ScriptedModel([js('const a = 1;\nthrow new Error("boom");'), js("final_answer(a)")]);
    const agent = track(new CodeAgent({ model }));
    const result = await agent.run("Fail once.");

    expect(lastText(model.calls[1]!.messages)).toBe(
      `Observation:\nError on line 2: throw new Error("boom");\nError: boom\n${RETRY}`,
    );
    const [failed] = actions(result.steps);
    expect(failed!.error).toEqual({
      name: "Error",
      code: "EXECUTION",
      message: "boom (line 2)",
      isRetryable: false,
      isFatal: false,
    });
    expect(result.output).toBe(1);
  });

  it("reports a syntax error as an observation", async () => {
    const model = new ScriptedModel([js("const = ;"), js("final_answer(1)")]);
    const agent = track(new CodeAgent({ model }));
    await agent.run("Write bad code.");
    expect(lastText(model.calls[1]!.messages)).toBe(
      `Observation:\nSyntax error on line 1: const = ;\nSyntaxError: Unexpected token\n${RETRY}`,
    );
  });

  it("keeps the logs printed before a step failed", async () => {
    const model = new ScriptedModel([
      js('console.log("before");\nthrow new Error("later");'),
      js("final_answer(1)"),
    ]);
    const agent = track(new CodeAgent({ model }));
    const result = await agent.run("Print then fail.");
    expect(lastText(model.calls[1]!.messages)).toBe(
      `Observation:\nExecution logs:\nbefore\nError on line 2: throw new Error("later");\nError: later\n${RETRY}`,
    );
    expect(actions(result.steps)[0]!.logs).toBe("before\n");
  });

  it("names the field when a tool gets bad input", async () => {
    const model = new ScriptedModel([
      js('await add({ a: "2", b: 3 })'),
      js("final_answer(await add({ a: 2, b: 3 }))"),
    ]);
    const agent = track(new CodeAgent({ model, tools: [add] }));
    const result = await agent.run("Add.");
    expect(lastText(model.calls[1]!.messages)).toBe(
      `Observation:\nTool error on line 1: await add({ a: "2", b: 3 })\nValidationError: invalid input for tool add: a: Invalid input: expected number, received string\n${RETRY}`,
    );
    expect(actions(result.steps)[0]!.error?.code).toBe("TOOL");
    expect(result.output).toBe(5);
  });

  it("keeps a function defined in step 1 for step 3", async () => {
    const model = new ScriptedModel([
      js("function triple(n) {\n  return n * 3;\n}"),
      js('console.log("unrelated")'),
      js("final_answer(triple(14))"),
    ]);
    const agent = track(new CodeAgent({ model }));
    const result = await agent.run("Triple 14 in three steps.");
    expect(actions(result.steps).map((step) => step.observation)).toEqual([
      "The code ran without printing anything, and its last expression had no value.",
      "Execution logs:\nunrelated",
      "final_answer was called with:\n42",
    ]);
    expect(result.output).toBe(42);
  });

  it("after maxSteps makes one closing call, without stop sequences, that must answer", async () => {
    const model = new ScriptedModel([js("1 + 1"), js("2 + 2"), "The answer is probably 4."]);
    const agent = track(new CodeAgent({ model, maxSteps: 2 }));
    const result = await agent.run("Never finish.");

    expect(result.state).toBe("max_steps");
    expect(result.output).toBe("The answer is probably 4.");
    expect(result.stepCount).toBe(2);
    const closing = model.calls[2]!;
    expect(closing.options.stopSequences).toBeUndefined();
    expect(closing.messages.at(-1)).toEqual({ role: "user", content: closingPrompt("Never finish.") });
    expect(closing.messages.at(-2)).toEqual({
      role: "user",
      content: "Observation:\nLast output from code snippet:\n4",
    });
    expect(result.steps.at(-1)).toMatchObject({
      type: "final-answer",
      source: "max_steps",
      output: "The answer is probably 4.",
    });
  });

  it("plans before step 1 and every planningInterval steps", async () => {
    const model = new ScriptedModel([
      `1. Add.\n2. Answer.${END_PLAN}ignored`,
      js("const s = await add({ a: 1, b: 2 })"),
      js("s"),
      `1. Answer now.${END_PLAN}`,
      js("final_answer(s)"),
    ]);
    const agent = track(new CodeAgent({ model, tools: [add], planningInterval: 2, maxSteps: 4 }));
    const result = await agent.run("Plan it.");

    expect(result.steps.map((step) => step.type)).toEqual([
      "task",
      "planning",
      "action",
      "action",
      "planning",
      "action",
      "final-answer",
    ]);
    expect(result.steps[1]).toMatchObject({ type: "planning", step: 1, plan: "1. Add.\n2. Answer." });
    expect(result.steps[4]).toMatchObject({ type: "planning", step: 3, plan: "1. Answer now." });
    expect(model.calls[0]!.options.stopSequences).toEqual([END_PLAN]);
    expect(model.calls[0]!.messages.at(-1)).toEqual({ role: "user", content: initialPlanPrompt("Plan it.") });
    expect(model.calls[3]!.messages.at(-1)).toEqual({
      role: "user",
      content: updatePlanPrompt("Plan it.", 2),
    });
    expect(model.calls[1]!.messages.slice(-2)).toEqual([
      { role: "assistant", content: "1. Add.\n2. Answer." },
      { role: "user", content: "Now proceed and carry out this plan." },
    ]);
    expect(result.output).toBe(3);
  });

  it("lets a final-answer check reject an answer, shows the reason, and continues", async () => {
    const model = new ScriptedModel([js('final_answer("ten")'), js("final_answer(10)")]);
    const checked: unknown[] = [];
    const agent = track(
      new CodeAgent({
        model,
        finalAnswerChecks: [
          (answer) => {
            checked.push(answer);
            return typeof answer === "number" || "the answer must be a number";
          },
        ],
      }),
    );
    const result = await agent.run("Give a number.");
    expect(checked).toEqual(["ten", 10]);
    expect(lastText(model.calls[1]!.messages)).toBe(
      "Observation:\nfinal_answer was called with:\nten\nYour final answer was rejected: the answer must be a number\nKeep working on the task and call final_answer again when the answer meets this.",
    );
    expect(actions(result.steps)[0]).toMatchObject({ isFinalAnswer: false, error: { code: "VALIDATION" } });
    expect(result.output).toBe(10);
    expect(result.stepCount).toBe(2);
  });

  it("tolerates a missing closing tag and keeps the reply normalised", async () => {
    const model = new ScriptedModel(["Thought: done.\n```js\nfinal_answer(7)\n", "unused"]);
    const agent = track(new CodeAgent({ model }));
    const result = await agent.run("Seven.");
    expect(result.output).toBe(7);
    expect(actions(result.steps)[0]!.modelOutput).toBe("Thought: done.\n```js\nfinal_answer(7)\n```");
  });

  it("answers a reply without code with an observation showing the expected format", async () => {
    const model = new ScriptedModel(["The answer is 7.", js("final_answer(7)")]);
    const agent = track(new CodeAgent({ model }));
    const result = await agent.run("Seven.");
    expect(lastText(model.calls[1]!.messages)).toBe(
      'Observation:\nError: your reply had no code block. Reply with "Thought:" and one code block, like this:\nThought: I will ...\n```js\n// your code here\n```',
    );
    expect(actions(result.steps)[0]!.error?.code).toBe("PARSE");
  });

  it("accepts <code> tags when configured", async () => {
    const model = new ScriptedModel(["Thought: x\n<code>\nfinal_answer(3)\n</code>"]);
    const agent = track(new CodeAgent({ model, codeBlockTags: "xml" }));
    const result = await agent.run("Three.");
    expect(result.output).toBe(3);
    expect(model.calls[0]!.options.stopSequences).toEqual(["</code>", "\nObservation:"]);
    expect(model.calls[0]!.messages[0]!.content).toContain("opened with <code> and closed with </code>");
  });

  it("passes extra variables into the sandbox and names them in the task", async () => {
    const model = new ScriptedModel([js("final_answer(prices.apple * qty)")]);
    const agent = track(new CodeAgent({ model }));
    const result = await agent.run("Cost?", { variables: { prices: { apple: 3 }, qty: 4 } });
    expect(result.output).toBe(12);
    expect(model.calls[0]!.messages[1]).toEqual({
      role: "user",
      content:
        'New task:\nCost?\n\nYou have been given these variables, already defined in your environment:\n- prices: {"apple":3}\n- qty: 4',
    });
  });

  it("aborts a running step: run rejects with AbortError and stream ends in state aborted", async () => {
    const model = new ScriptedModel((_messages, _options, call) =>
      call < 2 ? js("while (true) {}") : js("final_answer(1)"),
    );
    // The step timeout only bounds a broken abort; the run must end long before it.
    const agent = track(new CodeAgent({ model, stepTimeoutMs: 10_000 }));
    // Timed from the abort, not from run(): booting the sandbox worker can take seconds under load.
    let abortedAt = Number.NaN;
    const abortOnCode = (controller: AbortController) => (event: AgentEvent) => {
      if (event.type !== "code") return;
      setTimeout(() => {
        abortedAt = Date.now();
        controller.abort();
      }, 50);
    };
    const controller = new AbortController();
    const error = await agent
      .run("Loop.", { signal: controller.signal, onEvent: abortOnCode(controller) })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AbortError);
    expect(Date.now() - abortedAt).toBeLessThan(5_000);
    expect(agent.memory.steps.map((step) => step.type)).toEqual(["task"]);

    const again = new AbortController();
    const events: AgentEvent[] = [];
    for await (const event of agent.stream("Loop again.", {
      signal: again.signal,
      onEvent: abortOnCode(again),
    })) {
      events.push(event);
    }
    expect(shape(events)).toEqual([
      "run-start",
      "step-start",
      "model-delta",
      "model-output",
      "code",
      "error",
      "run-end",
    ]);
    expect(events.at(-2)).toMatchObject({ type: "error", step: 1, error: { code: "ABORTED" } });
    expect(events.at(-1)).toMatchObject({ type: "run-end", state: "aborted", steps: 0 });

    // The sandbox survived the interrupted loops.
    expect((await agent.run("Fine.")).output).toBe(1);
  });

  it("resets an executor instance it was given at the start of a run, and leaves it open on close", async () => {
    const executor = await QuickJsExecutor.create();
    try {
      await executor.run("globalThis.leftover = 1");
      const agent = new CodeAgent({
        model: new ScriptedModel([js("final_answer(typeof leftover)")]),
        executor,
      });
      expect((await agent.run("Check.")).output).toBe("undefined");
      await agent.close();
      expect((await executor.run("1 + 1")).output).toBe(2);
    } finally {
      await executor.close();
    }
  });

  it("calls step callbacks after every step with the memory so far", async () => {
    const model = new ScriptedModel([js("1"), js("final_answer(2)")]);
    const seen: string[] = [];
    const agent = track(
      new CodeAgent({
        model,
        stepCallbacks: [(step, memory) => void seen.push(`${step.type}@${memory.steps.length}`)],
      }),
    );
    await agent.run("Count.");
    expect(seen).toEqual(["action@2", "action@3", "final-answer@4"]);
  });
});
