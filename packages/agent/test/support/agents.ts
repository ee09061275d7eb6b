import type { AgentEvent, Message, UserMessage } from "@atrium/spec";
import { afterEach } from "vitest";
import { z } from "zod";
import type { MultiStepAgent } from "../../src/agents/index.js";
import { tool } from "../../src/tools/index.js";

const open: MultiStepAgent[] = [];

/** Registers an agent to be closed (its sandbox freed) after the test. */
export function track<A extends MultiStepAgent>(agent: A): A {
  open.push(agent);
  return agent;
}

afterEach(async () => {
  await Promise.all(open.splice(0).map((agent) => agent.close()));
});

/** A tool that adds two numbers, with a zod schema (so bad input is named). */
export const add = tool({
  name: "add",
  description: "Adds two numbers.",
  inputSchema: z.object({ a: z.number(), b: z.number() }),
  execute: ({ a, b }) => a + b,
});

/** A code block as the default markdown format expects. */
export function js(code: string, thought = "Thought: next."): string {
  return `${thought}\n\`\`\`js\n${code}\n\`\`\``;
}

/** The text of the last message of a request (the observation the model just got). */
export function lastText(messages: Message[]): string {
  const last = messages.at(-1) as UserMessage;
  return typeof last.content === "string"
    ? last.content
    : last.content.map((p) => (p.type === "text" ? p.text : "")).join("");
}

/** Event types in order, with each run of model-delta events folded into one. */
export function shape(events: AgentEvent[]): string[] {
  return events
    .map((event) => event.type)
    .filter((type, i, types) => !(type === "model-delta" && types[i - 1] === "model-delta"));
}

/** A tool whose every call needs approval; it answers "ran " + n. */
export const guarded = tool({
  name: "guarded",
  description: "needs approval",
  inputSchema: z.object({ n: z.number() }),
  needsApproval: true,
  execute: ({ n }) => `ran ${n}`,
});
