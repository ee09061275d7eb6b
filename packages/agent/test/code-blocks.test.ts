import { describe, expect, it } from "vitest";
import { codeBlockFormat, extractCode } from "../src/agents/index.js";

const markdown = codeBlockFormat("markdown", "javascript");
const xml = codeBlockFormat("xml", "javascript");

describe("code blocks", () => {
  it("extracts a fenced js block and keeps the reply as written", () => {
    const reply = "Thought: add.\n```js\nconst x = 1 + 1;\nx\n```";
    expect(extractCode(reply, markdown)).toEqual({
      code: "const x = 1 + 1;\nx",
      modelOutput: reply,
      closedByUs: false,
    });
  });

  it("accepts ```javascript and ```ts fences and joins several blocks", () => {
    const reply = "```javascript\nconst a = 1;\n```\ntext\n```ts\nconst b = 2;\n```";
    expect(extractCode(reply, markdown)?.code).toBe("const a = 1;\n\nconst b = 2;");
  });

  it("ignores blocks of other languages", () => {
    expect(extractCode("```python\nx = 1\n```", markdown)).toBeUndefined();
    expect(extractCode("no code here", markdown)).toBeUndefined();
  });

  it("tolerates a missing closing tag and adds it to the kept reply", () => {
    expect(extractCode("Thought: go\n```js\nfinal_answer(4)\n", markdown)).toEqual({
      code: "final_answer(4)",
      modelOutput: "Thought: go\n```js\nfinal_answer(4)\n```",
      closedByUs: true,
    });
    expect(extractCode("<code>\nfinal_answer(4)", xml)).toEqual({
      code: "final_answer(4)",
      modelOutput: "<code>\nfinal_answer(4)\n</code>",
      closedByUs: true,
    });
  });

  it("uses stop sequences that can only match a closing tag", () => {
    expect(markdown.stopSequences).toEqual(["\n```\n", "\nObservation:"]);
    expect("Thought\n```js\nx\n".includes(markdown.stopSequences[0]!)).toBe(false);
    expect(xml.stopSequences).toEqual(["</code>", "\nObservation:"]);
    expect(codeBlockFormat({ open: "<run>", close: "</run>" }, "javascript").stopSequences).toEqual([
      "</run>",
      "\nObservation:",
    ]);
  });

  it("labels fences with the executor's language", () => {
    const python = codeBlockFormat("markdown", "python");
    expect(python.open).toBe("```py");
    expect(extractCode("```python\nprint(1)\n```", python)?.code).toBe("print(1)");
  });

  it("rejects empty custom tags", () => {
    expect(() => codeBlockFormat({ open: "", close: "x" }, "javascript")).toThrow(
      'codeBlockTags must be "markdown", "xml" or { open: string, close: string } with non-empty tags',
    );
  });
});
