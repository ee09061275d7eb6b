import { JAVASCRIPT_DIALECT, PYTHON_DIALECT } from "@atrium/agent";
import { type Message, textOf } from "@atrium/spec";
import { describe, expect, it } from "vitest";
import { scriptedDocsModel } from "./scripted-docs-model.js";

/** The first sentence of a code agent's system prompt, as the agent renders it for a dialect. */
const promptFor = (name: string) =>
  `You are an expert assistant who solves tasks by writing ${name} code. You work in steps.`;

async function reply(messages: Message[]): Promise<string> {
  return textOf((await scriptedDocsModel().generate(messages)).message.content);
}

const task = (question: string): Message => ({ role: "user", content: `New task:\n${question}` });

describe("the scripted docs model's language", () => {
  it("writes the language the prompt asks for, the same commands in each", async () => {
    const question = task("Where do I set a custom domain?");
    const python = await reply([{ role: "system", content: promptFor(PYTHON_DIALECT.name) }, question]);
    const javascript = await reply([
      { role: "system", content: promptFor(JAVASCRIPT_DIALECT.name) },
      question,
    ]);
    expect(python).toMatch(
      /^Thought: I will grep the docs for the key terms "custom", "domain", search.*\n```py\nimport json\n/,
    );
    expect(python).toContain(
      `\nsearched = bash(command="search 'Where do I set a custom domain?'")\nfound = [bash(command=command) for command in ["grep -rciE -- '(^|[^[:alnum:]])custom' / | grep -v ':0$'","grep -rciE -- '(^|[^[:alnum:]])domain' / | grep -v ':0$'"]]\n`,
    );
    expect(javascript).toMatch(/\n```js\nconst terms = \["custom","domain"\];\n/);
    expect(javascript).toContain(
      `bash({ command: "search 'Where do I set a custom domain?'" }),\n  ...["grep -rciE -- '(^|[^[:alnum:]])custom' / | grep -v ':0$'","grep -rciE -- '(^|[^[:alnum:]])domain' / | grep -v ':0$'"].map((command) => bash({ command })),`,
    );
  });

  it("answers in that language, and in JavaScript (QuickJS's) without a code agent's prompt", async () => {
    const noTerms = task("How?");
    expect(await reply([{ role: "system", content: promptFor("Python") }, noTerms])).toBe(
      'Thought: I can answer now.\n```py\nfinal_answer({\n    "answer": "The question has no words to search the docs for; ask about a feature or a task.",\n    "sources": []\n})\n```',
    );
    expect(await reply([noTerms])).toBe(
      'Thought: I can answer now.\n```js\nfinal_answer({\n  "answer": "The question has no words to search the docs for; ask about a feature or a task.",\n  "sources": []\n});\n```',
    );
  });
});
