import { describe, expect, it } from "vitest";
import { z } from "zod";
import {
  codeAgentSystemPrompt,
  JAVASCRIPT_SANDBOX_CAPABILITIES,
  PYTHON_SANDBOX_CAPABILITIES,
} from "../src/prompts/code-agent-prompt.js";
import { toolCallingSystemPrompt } from "../src/prompts/tool-calling-prompt.js";
import { javascriptSignature, pythonSignature } from "../src/prompts/tool-signatures.js";
import { tool } from "../src/tools/index.js";

const search = tool({
  name: "search",
  description: "Searches the web.",
  inputSchema: z.object({
    query: z.string().describe("What to look for."),
    limit: z.number().int().optional().describe("How many results."),
    mode: z.enum(["fast", "deep"]).optional(),
    filters: z.array(z.object({ field: z.string(), value: z.union([z.string(), z.number()]) })).optional(),
    extra: z.record(z.string(), z.boolean()).optional(),
  }),
  outputSchema: z.array(z.object({ title: z.string(), url: z.string() })),
  execute: () => [],
});

describe("tool signatures", () => {
  it("renders a tool as a typed, documented TypeScript declaration", () => {
    expect(javascriptSignature(search)).toBe(
      [
        "/**",
        " * Searches the web.",
        " * @param input.query What to look for.",
        " * @param input.limit How many results.",
        " */",
        'async function search(input: { query: string; limit?: number; mode?: "fast" | "deep"; filters?: { field: string; value: string | number }[]; extra?: Record<string, boolean> }): Promise<{ title: string; url: string }[]>;',
      ].join("\n"),
    );
  });

  it("renders a tool as a Python function with keyword arguments and a docstring", () => {
    expect(pythonSignature(search)).toBe(
      [
        'def search(query: str, limit: int | None = None, mode: Literal["fast"] | Literal["deep"] | None = None, filters: list[dict] | None = None, extra: dict[str, bool] | None = None) -> list[dict]:',
        '    """',
        "    Searches the web.",
        "",
        "    Args:",
        "        query: What to look for.",
        "        limit: How many results.",
        '    """',
      ].join("\n"),
    );
  });
});

describe("code agent system prompt", () => {
  const add = tool({
    name: "add",
    description: "Adds two numbers.",
    inputSchema: z.object({ a: z.number(), b: z.number() }),
    outputSchema: z.number(),
    execute: ({ a, b }) => a + b,
  });

  it("lists the tools as typed signatures, the sandbox's capabilities and examples in JavaScript", () => {
    const prompt = codeAgentSystemPrompt({
      language: "javascript",
      tools: [add],
      open: "```js",
      close: "```",
      capabilities: JAVASCRIPT_SANDBOX_CAPABILITIES,
      instructions: "Answer in French.",
    });
    expect(prompt).toContain(
      [
        "Functions you can call:",
        "```js",
        "/**",
        " * Adds two numbers.",
        " */",
        "async function add(input: { a: number; b: number }): Promise<number>;",
        "",
        "/** Ends the task with this answer (any JSON-compatible value). */",
        "function final_answer(answer: unknown): never;",
        "```",
      ].join("\n"),
    );
    expect(prompt).toContain(
      `The sandbox:\n${JAVASCRIPT_SANDBOX_CAPABILITIES.map((line) => `- ${line}`).join("\n")}`,
    );
    expect(prompt).toContain(
      "Thought: I do not know what an order looks like; I will print one before using it.\n```js\nconst orders = await list_orders({ limit: 3 });\nconsole.log(orders[0]);\n```\nObservation:\nExecution logs:\n{ id: 'A17', total_cents: 4200 }",
    );
    expect(prompt.endsWith("Instructions from the developer:\nAnswer in French.")).toBe(true);
  });

  it("speaks Python to a Python sandbox", () => {
    const prompt = codeAgentSystemPrompt({
      language: "python",
      tools: [add],
      open: "```py",
      close: "```",
      capabilities: PYTHON_SANDBOX_CAPABILITIES,
    });
    expect(prompt).toContain(
      'def add(a: float, b: float) -> float:\n    """\n    Adds two numbers.\n    """',
    );
    expect(prompt).toContain("```py\norders = list_orders(limit=3)\nprint(orders[0])\n```");
    expect(prompt).toContain("Tools are functions taking keyword arguments: `r = tool_name(field=value)`.");
  });
});

describe("tool-calling agent system prompt", () => {
  it("lists each tool by name and the first line of its description, plus final_answer", () => {
    const prompt = toolCallingSystemPrompt({ tools: [search] });
    expect(prompt).toContain(
      "Tools:\n- search: Searches the web.\n- final_answer: Ends the task with the answer.",
    );
    expect(prompt).toContain(
      "3. When you have the answer, call final_answer alone, with the complete answer.",
    );
  });
});
