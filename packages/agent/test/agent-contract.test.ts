// Every Agent in this package runs the one contract suite from @atrium/spec, with a scripted
// model (the one part that can't be real offline) and, for the CodeAgent, a real QuickJS sandbox.
import type { Message } from "@atrium/spec";
import { agentContract, describeContract } from "@atrium/spec/testing";
import { CodeAgent, ToolCallingAgent } from "../src/agents/index.js";
import { ScriptedModel } from "../src/models/index.js";
import { add, js } from "./support/agents.js";

const TASK = "Add 2 and 3, then say where the marathon is.";
const OUTPUT = { city: "Lisbon", sum: 5 };

/** Which step the model is on: the assistant turns it has already taken, plus one. */
const stepOf = (messages: Message[]) => messages.filter((message) => message.role === "assistant").length + 1;

describeContract(
  agentContract(
    async () =>
      new CodeAgent({
        name: "coder",
        description: "Adds numbers in code.",
        tools: [add],
        model: new ScriptedModel((messages) =>
          stepOf(messages) === 1
            ? js("const sum = await add({ a: 2, b: 3 });\nconsole.log(sum);")
            : js('final_answer({ city: "Lisbon", sum });'),
        ),
      }),
    { task: TASK, output: OUTPUT },
  ),
);

describeContract(
  agentContract(
    async () =>
      new ToolCallingAgent({
        name: "caller",
        description: "Adds numbers with tool calls.",
        tools: [add],
        model: new ScriptedModel((messages) =>
          stepOf(messages) === 1
            ? { content: "", toolCalls: [{ name: "add", input: { a: 2, b: 3 } }] }
            : { content: "", toolCalls: [{ name: "final_answer", input: { answer: OUTPUT } }] },
        ),
      }),
    { task: TASK, output: OUTPUT },
  ),
);
