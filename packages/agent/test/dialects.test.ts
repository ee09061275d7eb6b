import { type CodeExecutor, ConfigError, type ExecutorCapabilities, type SystemMessage } from "@atrium/spec";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import {
  type ActionStep,
  CodeAgent,
  codeBlockFormat,
  extractCode,
  noCodeBlockMessage,
} from "../src/agents/index.js";
import {
  CODE_DIALECTS,
  dialectFor,
  JAVASCRIPT_DIALECT,
  PYTHON_DIALECT,
  pythonSignature,
} from "../src/dialects/index.js";
import { QUICKJS_CAPABILITIES, quickJsExecutorFactory } from "../src/executors/index.js";
import { ScriptedModel } from "../src/models/index.js";
import { codeAgentSystemPrompt } from "../src/prompts/code-agent-prompt.js";
import { tool } from "../src/tools/index.js";
import { js, track } from "./support/agents.js";

const weather = tool({
  name: "get_weather",
  description: "Current weather of a city.",
  inputSchema: z.object({
    city: z.string().describe("The city's name."),
    days: z.number().int().optional().describe("How many days ahead."),
    units: z.enum(["metric", "imperial"]),
  }),
  outputSchema: z.object({ celsius: z.number(), sky: z.string() }),
  execute: () => ({ celsius: 21, sky: "clear" }),
});

const add = tool({
  name: "add",
  description: "Adds two numbers.",
  inputSchema: z.object({ a: z.number().int(), b: z.number().int() }),
  outputSchema: z.number().int(),
  execute: ({ a, b }) => a + b,
});

describe("dialectFor", () => {
  it("has a dialect for JavaScript and one for Python", () => {
    expect(dialectFor("javascript")).toBe(JAVASCRIPT_DIALECT);
    expect(dialectFor("python")).toBe(PYTHON_DIALECT);
    expect(Object.keys(CODE_DIALECTS)).toEqual(["javascript", "python"]);
  });

  it("names the language it lacks and the dialects it has", () => {
    expect(() => dialectFor("bash")).toThrow(ConfigError);
    expect(() => dialectFor("bash")).toThrow(
      'CodeAgent has no dialect for executor language "bash"; dialects available: javascript, python',
    );
    // A name inherited from Object.prototype is no dialect either.
    expect(() => dialectFor("toString" as "bash")).toThrow('executor language "toString"');
  });
});

describe("the Python dialect", () => {
  it("renders tools as functions with keyword arguments, required ones first, and docstrings", () => {
    expect(pythonSignature(weather)).toBe(
      [
        'def get_weather(city: str, units: Literal["metric"] | Literal["imperial"], days: int | None = None) -> dict:',
        '    """',
        "    Current weather of a city.",
        "",
        "    Args:",
        "        city: The city's name.",
        "        days: How many days ahead.",
        '    """',
      ].join("\n"),
    );
    expect(PYTHON_DIALECT.toolSignature(add)).toBe(
      'def add(a: int, b: int) -> int:\n    """\n    Adds two numbers.\n    """',
    );
  });

  it("puts the tools' Python signatures and final_answer in the system prompt", () => {
    const prompt = codeAgentSystemPrompt({
      language: "python",
      tools: [add, weather],
      open: "```py",
      close: "```",
      capabilities: PYTHON_DIALECT.sandboxCapabilities,
    });
    expect(prompt).toContain(
      [
        "Functions you can call:",
        "```py",
        "def add(a: int, b: int) -> int:",
        '    """',
        "    Adds two numbers.",
        '    """',
        "",
        'def get_weather(city: str, units: Literal["metric"] | Literal["imperial"], days: int | None = None) -> dict:',
        '    """',
        "    Current weather of a city.",
        "",
        "    Args:",
        "        city: The city's name.",
        "        days: How many days ahead.",
        '    """',
        "",
        "def final_answer(answer: Any) -> None:",
        '    """Ends the task with this answer."""',
        "```",
        "Tools are functions taking keyword arguments: `r = tool_name(field=value)`.",
      ].join("\n"),
    );
    expect(prompt.startsWith("You are an expert assistant who solves tasks by writing Python code.")).toBe(
      true,
    );
    expect(prompt).toContain("What it prints with print(...) and the value of its last expression");
    expect(prompt).not.toContain("await");
    expect(prompt).not.toContain("console.log");
  });

  it("says so when there are no tools, in a Python comment", () => {
    const prompt = codeAgentSystemPrompt({
      language: "python",
      tools: [],
      open: "```py",
      close: "```",
      capabilities: [],
    });
    expect(prompt).toContain(
      "```py\n# (no tools besides final_answer)\n\ndef final_answer(answer: Any) -> None:",
    );
  });

  it("accepts ```py, ```python and ```python3 fences, and no JavaScript ones", () => {
    const format = codeBlockFormat("markdown", PYTHON_DIALECT);
    expect([format.open, format.close]).toEqual(["```py", "```"]);
    const reply = [
      "Thought: two blocks.",
      "```py",
      "x = 1",
      "```",
      "```python",
      "y = x + 1",
      "```",
      "```js",
      "const z = 3;",
      "```",
      "```python3 ",
      "final_answer(y)",
    ].join("\n");
    expect(extractCode(reply, format)).toEqual({
      code: "x = 1\n\ny = x + 1\n\nfinal_answer(y)",
      modelOutput: `${reply}\n\`\`\``,
      closedByUs: true,
    });
    expect(extractCode("```javascript\nfinal_answer(1)\n```", format)).toBeUndefined();
  });

  it("shows a Python placeholder when a reply has no code", () => {
    expect(noCodeBlockMessage(codeBlockFormat("markdown", PYTHON_DIALECT), PYTHON_DIALECT)).toBe(
      'your reply had no code block. Reply with "Thought:" and one code block, like this:\nThought: I will ...\n```py\n# your code here\n```',
    );
  });
});

describe("the JavaScript dialect", () => {
  it("accepts JavaScript and TypeScript fences and shows ```js", () => {
    const format = codeBlockFormat("markdown", JAVASCRIPT_DIALECT);
    expect(format.open).toBe("```js");
    for (const label of ["js", "javascript", "ts", "typescript", "mjs", "jsx"]) {
      expect(extractCode(`\`\`\`${label}\nfinal_answer(1)\n\`\`\``, format)?.code).toBe("final_answer(1)");
    }
    expect(extractCode("```py\nfinal_answer(1)\n```", format)).toBeUndefined();
  });

  it("renders tools as async functions of one object", () => {
    expect(JAVASCRIPT_DIALECT.toolSignature(add)).toBe(
      "/**\n * Adds two numbers.\n */\nasync function add(input: { a: number; b: number }): Promise<number>;",
    );
  });
});

/**
 * An executor that declares a language and never runs code: enough for the CodeAgent to pick
 * (or refuse) a dialect. No interpreter stands behind it, so any `run` fails the test.
 */
function declaredOnly(capabilities: ExecutorCapabilities): CodeExecutor & { closed: number } {
  return {
    language: capabilities.language,
    capabilities,
    closed: 0,
    async run() {
      throw new Error("this executor runs no code");
    },
    setTools() {},
    setVariables() {},
    async reset() {},
    async close() {
      this.closed++;
    },
  };
}

const BASH: ExecutorCapabilities = { ...QUICKJS_CAPABILITIES, language: "bash" };
const PYTHON: ExecutorCapabilities = { ...QUICKJS_CAPABILITIES, language: "python", isolation: "wasm" };
const NO_BASH_DIALECT =
  'CodeAgent has no dialect for executor language "bash"; dialects available: javascript, python';

describe("CodeAgent dialects", () => {
  it("refuses an executor instance or factory of a language without a dialect when it is built", () => {
    const model = new ScriptedModel([]);
    const executor = declaredOnly(BASH);
    expect(() => new CodeAgent({ model, executor })).toThrow(NO_BASH_DIALECT);
    const factory = { capabilities: BASH, create: async () => declaredOnly(BASH) };
    expect(() => new CodeAgent({ model, executor: factory })).toThrow(NO_BASH_DIALECT);
  });

  it("refuses what a function made when the language has no dialect, and closes it", async () => {
    const made = declaredOnly(BASH);
    const agent = track(new CodeAgent({ model: new ScriptedModel([]), executor: () => made }));
    await expect(agent.run("List the files.")).rejects.toThrow(NO_BASH_DIALECT);
    expect(made.closed).toBe(1);
  });

  it("prompts in Python and answers a reply without code in Python when the executor runs Python", async () => {
    const model = new ScriptedModel(["The answer is 7.", "7"]);
    const agent = track(new CodeAgent({ model, tools: [add], executor: declaredOnly(PYTHON), maxSteps: 1 }));
    const result = await agent.run("Add 3 and 4.");
    const system = model.calls[0]!.messages[0] as SystemMessage;
    expect(system.content).toContain(
      'Functions you can call:\n```py\ndef add(a: int, b: int) -> int:\n    """\n    Adds two numbers.\n    """',
    );
    expect(system.content).toContain(
      `The sandbox:\n${PYTHON_DIALECT.sandboxCapabilities.map((l) => `- ${l}`).join("\n")}`,
    );
    const step = result.steps.find((s): s is ActionStep => s.type === "action")!;
    expect(step.observation).toBe(
      'Error: your reply had no code block. Reply with "Thought:" and one code block, like this:\nThought: I will ...\n```py\n# your code here\n```',
    );
    expect(model.calls[0]!.options.stopSequences).toEqual(["\n```\n", "\nObservation:"]);
  });

  it("takes an ExecutorFactory, making a fresh sandbox per agent", async () => {
    const model = new ScriptedModel([js("final_answer(await add({ a: 3, b: 4 }))")]);
    const agent = track(new CodeAgent({ model, tools: [add], executor: quickJsExecutorFactory() }));
    const result = await agent.run("Add 3 and 4.");
    expect(result.output).toBe(7);
    expect((await agent.executor()).capabilities).toEqual(QUICKJS_CAPABILITIES);
  });
});
