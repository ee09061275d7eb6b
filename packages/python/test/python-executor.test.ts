// What the Python executor adds to the CodeExecutor contract (which runs in
// src/python-executor.contract.test.ts): Python calling conventions for tools, values crossing
// as JSON, bounded logs, the allow-list, the JavaScript hint, and configuration errors.
import { ConfigError, type Tool, ToolError } from "@atrium/spec";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { drainPythonWorkers, PythonExecutor, type ToolCallEvent } from "../src/index.js";

const events: ToolCallEvent[] = [];
const tools: Tool[] = [
  {
    name: "search",
    description: "Searches.",
    inputSchema: {
      type: "object",
      properties: { limit: { type: "number" }, query: { type: "string" } },
      required: ["query"],
    },
    async execute(input: { query: string; limit?: number }) {
      return { query: input.query, limit: input.limit ?? null };
    },
  },
  {
    name: "huge",
    description: "Returns too much.",
    inputSchema: { type: "object" },
    async execute() {
      return "x".repeat(2_000);
    },
  },
  {
    name: "refuse",
    description: "Fails.",
    inputSchema: { type: "object" },
    async execute() {
      throw new ToolError("refuse", "not today");
    },
  },
];

let executor: PythonExecutor;

beforeAll(async () => {
  executor = await PythonExecutor.create({
    tools,
    maxOutputChars: 100,
    maxTransferChars: 1_000,
    additionalAuthorizedImports: ["csv"],
    onToolCall: (event) => events.push(event),
  });
}, 180_000);

afterAll(async () => {
  await executor?.close();
  await drainPythonWorkers();
});

describe("PythonExecutor", () => {
  it("passes tool arguments by keyword or by position (required parameters first)", async () => {
    const result = await executor.run('[search(query="a"), search("b", 3), search(limit=2, query="c")]');
    expect(result.output).toEqual([
      { query: "a", limit: null },
      { query: "b", limit: 3 },
      { query: "c", limit: 2 },
    ]);
  });

  it("names the parameters when a tool gets too many positional arguments", async () => {
    const result = await executor.run('search("a", 1, 2)');
    expect(result.error).toEqual({
      kind: "runtime",
      name: "TypeError",
      message: "search() takes 2 positional arguments (query, limit) but 3 were given",
      line: 1,
      lineText: 'search("a", 1, 2)',
    });
  });

  it("reports each tool call to onToolCall", async () => {
    events.length = 0;
    await executor.run('search(query="q")');
    expect(events.map(({ type, name }) => ({ type, name }))).toEqual([
      { type: "tool-call", name: "search" },
      { type: "tool-result", name: "search" },
    ]);
    expect(events[0]).toMatchObject({ input: { query: "q" } });
  });

  it("raises ToolError for a failing tool and for a result too large to cross", async () => {
    const failing = await executor.run("refuse()");
    expect(failing.error).toMatchObject({
      kind: "tool",
      name: "ToolError",
      message: 'Tool "refuse" failed: not today',
    });
    const tooBig = await executor.run("huge()");
    expect(tooBig.error).toMatchObject({
      kind: "tool",
      name: "ToolError",
      message:
        'Tool "huge" failed: tool "huge" returned 2002 characters of JSON; the sandbox accepts at most 1000 (maxTransferChars)',
    });
  });

  it("keeps imports, functions and classes across steps", async () => {
    expect(
      (await executor.run("import json\nclass P:\n    def __init__(self, n):\n        self.n = n")).error,
    ).toBeUndefined();
    expect((await executor.run("json.dumps({'n': P(4).n})")).output).toBe('{"n": 4}');
  });

  it("returns values that are not JSON as lists or their repr, and None as no value", async () => {
    expect((await executor.run("(1, 2)")).output).toEqual([1, 2]);
    expect((await executor.run("sorted({3, 1})")).output).toEqual([1, 3]);
    expect((await executor.run("P(1)")).output).toMatch(/^<__main__\.P object at 0x[0-9a-f]+>$/);
    expect((await executor.run("None")).output).toBeUndefined();
    expect((await executor.run("print('x')")).output).toBeUndefined();
  });

  it("captures print with sep and end, and bounds the logs head and tail", async () => {
    expect((await executor.run("print(1, 2, sep='-', end='!')")).logs).toBe("1-2!");
    const result = await executor.run("for i in range(50):\n    print('line', i)");
    const full = Array.from({ length: 50 }, (_, i) => `line ${i}\n`).join("");
    expect(result.logs).toBe(
      `${full.slice(0, 50)}\n… [${full.length - 100} characters of output cut] …\n${full.slice(-50)}`,
    );
  });

  it("keeps a final answer even when the code catches the exception that ends the step", async () => {
    const result = await executor.run(
      "try:\n    final_answer({'a': 1})\nexcept BaseException:\n    pass\nprint('after')",
    );
    // Like smolagents: the answer stands; code that swallowed the exception ran on.
    expect(result).toMatchObject({ isFinalAnswer: true, output: { a: 1 }, logs: "after\n" });
  });

  it("imports what additionalAuthorizedImports adds, and the stdlib's own helpers work", async () => {
    const csv = await executor.run("import csv\nlist(csv.reader(['a,b']))");
    expect(csv.output).toEqual([["a", "b"]]);
    const dates = await executor.run(
      "import datetime\ndatetime.datetime.strptime('2024-01-02', '%Y-%m-%d').day",
    );
    expect(dates.output).toBe(2);
    const records = await executor.run(
      "import dataclasses, collections\n@dataclasses.dataclass\nclass D:\n    x: int = 1\nT = collections.namedtuple('T', 'a b')\n[repr(D(2)), T(1, 2)._asdict()['b']]",
    );
    expect(records.output).toEqual(["D(x=2)", 2]);
  });

  it("tells a model that wrote JavaScript that this sandbox runs Python", async () => {
    const code = "const r = await search({ query: 'x' });\nconsole.log(r);";
    const result = await executor.run(code);
    expect(result.error).toEqual({
      kind: "syntax",
      name: "SyntaxError",
      message:
        "invalid syntax. This looks like JavaScript, but this sandbox runs Python. Write Python: no const/let/await, call tools as functions with keyword arguments (result = tool_name(field=value)), print with print(...).",
      line: 1,
      lineText: "const r = await search({ query: 'x' });",
    });
  });

  it("reports a Python syntax error without the hint", async () => {
    const result = await executor.run("x = = 1");
    expect(result.error).toEqual({
      kind: "syntax",
      name: "SyntaxError",
      message: "invalid syntax",
      line: 1,
      lineText: "x = = 1",
    });
  });

  it("refuses tool and variable names Python cannot use", async () => {
    const named = (name: string): Tool => ({ ...tools[0]!, name });
    await expect(executor.setTools([named("class")])).rejects.toThrow(
      new ConfigError('setTools: "class" cannot be a tool name in Python: it is a Python keyword'),
    );
    await expect(executor.setTools([named("final_answer")])).rejects.toThrow(
      new ConfigError(
        'setTools: "final_answer" cannot be a tool name in Python: it is built into the sandbox',
      ),
    );
    await expect(executor.setVariables({ "not-a-name": 1 })).rejects.toThrow(
      new ConfigError('setVariables: "not-a-name" cannot be a variable name: it is not a Python identifier'),
    );
    await expect(executor.setVariables({ search: 1 })).rejects.toThrow(
      new ConfigError('setVariables: "search" cannot be a variable name: it is a tool\'s name'),
    );
  });

  it("refuses a bad allow-list entry and a bad limit when it is created", async () => {
    await expect(PythonExecutor.create({ additionalAuthorizedImports: ["os path"] })).rejects.toThrow(
      new ConfigError(
        'additionalAuthorizedImports: "os path" is not a module name; use names like "csv", "xml.*" or "*"',
      ),
    );
    await expect(PythonExecutor.create({ maxMemoryBytes: -1 })).rejects.toThrow(
      new ConfigError("@atrium/python limit maxMemoryBytes must be a positive integer, got -1"),
    );
  });
});
