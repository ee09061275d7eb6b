import { type ExecutionResult, ExecutorBusyError, type Tool } from "@atrium/spec";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { QuickJsExecutor } from "./quickjs-executor.js";

/**
 * Escape and abuse attempts against the QuickJS sandbox. Each one must be contained with a
 * clear result, and afterwards the host must be healthy: the same executor still runs code,
 * and nothing leaked into the host's `Object.prototype`.
 */
const objectPrototypeKeys = Reflect.ownKeys(Object.prototype);
let executor: QuickJsExecutor;
let addCalls = 0;

const tools: Tool[] = [
  {
    name: "add",
    description: "Adds a and b.",
    inputSchema: { type: "object" },
    async execute(input: { a: number; b: number }) {
      addCalls++;
      return input.a + input.b;
    },
  },
  {
    name: "poison",
    description: "Returns data with a __proto__ key.",
    inputSchema: { type: "object" },
    async execute() {
      return JSON.parse('{"__proto__": {"polluted": "from tool"}, "a": 1}');
    },
  },
  {
    name: "reenter",
    description: "Calls back into the executor running it, and reports what happened.",
    inputSchema: { type: "object" },
    async execute() {
      try {
        await executor.run("1 + 1");
        return "nested run succeeded";
      } catch (error) {
        return `${(error as Error).name}: ${(error as Error).message}`;
      }
    },
  },
];

beforeAll(async () => {
  executor = await QuickJsExecutor.create({
    tools,
    timeoutMs: 500,
    maxMemoryBytes: 32 * 1024 * 1024,
    maxJobs: 10_000,
    maxToolCalls: 50,
    maxOutputChars: 2_000,
    maxPrintedChars: 20_000,
  });
});

afterAll(async () => {
  await executor.close();
});

async function expectHealthy(): Promise<void> {
  const result = await executor.run("40 + 2");
  expect(result.error).toBeUndefined();
  expect(result.output).toBe(42);
  expect(Reflect.ownKeys(Object.prototype)).toEqual(objectPrototypeKeys);
  expect(({} as Record<string, unknown>).polluted).toBeUndefined();
}

async function attempt(code: string): Promise<ExecutionResult> {
  const result = await executor.run(code);
  await expectHealthy();
  return result;
}

describe("QuickJS sandbox: constructor chains and host globals", () => {
  it("1. this.constructor.constructor reaches only the sandbox's Function", async () => {
    const result = await attempt('this.constructor.constructor("return process")()');
    expect(result.error).toMatchObject({
      kind: "runtime",
      name: "ReferenceError",
      message: "'process' is not defined",
      line: 1,
    });
  });

  it("2. an arrow function's constructor builds sandbox functions only", async () => {
    const result = await attempt(
      '(() => {}).constructor("return [typeof process, typeof require].join()")()',
    );
    expect(result.output).toBe("undefined,undefined");
  });

  it("3. a tool function's constructor chain has no host access", async () => {
    const result = await attempt(
      'add.constructor("return [typeof process, typeof require, typeof module, typeof Buffer, this === globalThis].join()")()',
    );
    expect(result.output).toBe("undefined,undefined,undefined,undefined,true");
  });

  it("4. host globals are absent", async () => {
    const result = await attempt(
      "[typeof process, typeof require, typeof fetch, typeof setTimeout, typeof setInterval, typeof XMLHttpRequest, typeof WebAssembly, typeof std, typeof os, typeof queueMicrotask].join()",
    );
    expect(result.output).toBe(Array(10).fill("undefined").join());
  });

  it("5. dynamic import of a host module fails", async () => {
    const result = await attempt('await import("fs")');
    expect(result.error).toMatchObject({
      kind: "runtime",
      name: "ReferenceError",
      message: "could not load module 'fs'",
    });
  });

  it("6. a static import is a syntax error", async () => {
    const result = await attempt('import fs from "fs";\nfs');
    expect(result.error).toMatchObject({ kind: "syntax", name: "SyntaxError", line: 1 });
    expect(result.error?.message).toMatch(/'import' and 'export' may appear only with 'sourceType: module'/);
  });

  it("7. eval sees the sandbox global only", async () => {
    const result = await attempt('eval("[typeof process, typeof globalThis.require].join()")');
    expect(result.output).toBe("undefined,undefined");
  });
});

describe("QuickJS sandbox: data handed in and out", () => {
  it("8. polluting prototypes through a variable stays in the sandbox", async () => {
    await executor.setVariables({ data: { n: 1 } });
    const result = await attempt(
      'data.__proto__.polluted = "yes";\nObject.prototype.polluted2 = "yes";\n[({}).polluted, ({}).polluted2]',
    );
    expect(result.output).toEqual(["yes", "yes"]);
    expect(Object.hasOwn(Object.prototype, "polluted2")).toBe(false);
    await executor.run("delete Object.prototype.polluted; delete Object.prototype.polluted2");
  });

  it("9. a __proto__ key in a variable is plain data inside", async () => {
    await executor.setVariables({ evil: JSON.parse('{"__proto__": {"polluted": true}, "x": 1}') });
    const result = await attempt("[Object.keys(evil).join(), ({}).polluted === undefined, evil.x]");
    expect(result.output).toEqual(["__proto__,x", true, 1]);
  });

  it("10. a tool result with a __proto__ key cannot pollute the sandbox or the host", async () => {
    const result = await attempt(
      "const r = await poison({});\n[r.a, ({}).polluted === undefined, Object.getPrototypeOf(r) === Object.prototype]",
    );
    expect(result.output).toEqual([1, true, true]);
  });

  it("11. a __proto__ key in a returned value is dropped on the host", async () => {
    const result = await attempt(`JSON.parse('{"__proto__": {"polluted": 1}, "ok": 1}')`);
    expect(result.output).toEqual({ ok: 1 });
    expect(Object.getPrototypeOf(result.output)).toBe(Object.prototype);
  });

  it("12. a getter on the returned object that never ends is stopped by the time limit", async () => {
    const result = await attempt("({ get a() { while (true) {} } })");
    expect(result.error).toMatchObject({ kind: "timeout", name: "TimeoutError" });
  });

  it("13. a getter that throws makes a clear error", async () => {
    const result = await attempt('({ get a() { throw new Error("nope") } })');
    expect(result.error).toMatchObject({
      kind: "runtime",
      name: "TypeError",
      message: "the value of the last expression is not JSON-compatible data: nope",
    });
  });

  it("14. a toJSON trap runs inside the sandbox, under its limits", async () => {
    const looping = await attempt("({ toJSON() { while (true) {} } })");
    expect(looping.error).toMatchObject({ kind: "timeout" });
    const replaced = await attempt('({ secret: 1, toJSON() { return "replaced" } })');
    expect(replaced.output).toBe("replaced");
  });

  it("15. symbol and BigInt results are described, not thrown", async () => {
    expect((await attempt('Symbol("s")')).output).toBe("Symbol(s)");
    expect((await attempt("10n ** 20n")).output).toBe("100000000000000000000");
    expect((await attempt("({ n: 5n, s: Symbol('x'), f() {} })")).output).toEqual({ n: "5" });
  });

  it("16. a cyclic result is a clear error", async () => {
    const result = await attempt("const c = {};\nc.self = c;\nc");
    expect(result.error).toMatchObject({
      kind: "runtime",
      name: "TypeError",
      message: "the value of the last expression is not JSON-compatible data: circular reference",
    });
  });

  it("17. a thrown value with a getter that never ends is stopped", async () => {
    const result = await attempt("throw { get message() { while (true) {} } }");
    expect(result.error).toMatchObject({ kind: "timeout" });
  });
});

describe("QuickJS sandbox: resource abuse", () => {
  it("18. a huge string is an out-of-memory error", async () => {
    const result = await attempt('"x".repeat(1e9).length');
    expect(result.error).toMatchObject({ kind: "memory", name: "MemoryError", line: 1 });
  });

  it("19. a huge array is an out-of-memory error", async () => {
    const result = await attempt("const n = 1e8;\nnew Array(n).fill(0).length");
    expect(result.error).toMatchObject({ kind: "memory", name: "MemoryError", line: 2 });
  });

  it("20. deep recursion is a stack error with the line", async () => {
    const result = await attempt("function down(n) {\n  return down(n + 1) + 1;\n}\ndown(0)");
    expect(result.error).toMatchObject({
      kind: "runtime",
      name: "RangeError",
      line: 2,
      lineText: "  return down(n + 1) + 1;",
    });
    expect(result.error?.message).toMatch(/^Maximum call stack size exceeded/);
  });

  it("21. deeply nested data that overflows Node's own stack restarts the sandbox", async () => {
    const deep = await QuickJsExecutor.create({ tools });
    try {
      await deep.run("const keep = 1");
      const result = await deep.run(
        "let o = {};\nfor (let i = 0; i < 100000; i++) o = { o };\nJSON.stringify(o).length",
      );
      expect(result.error).toMatchObject({ kind: "runtime", name: "RangeError", stateLost: true });
      expect(result.error?.message).toMatch(/^Maximum call stack size exceeded: the code nested too deeply/);
      expect((await deep.run("typeof keep")).output).toBe("undefined");
      expect((await deep.run("await add({ a: 1, b: 1 })")).output).toBe(2);
    } finally {
      await deep.close();
    }
    await expectHealthy();
  });

  it("22. a synchronous infinite loop hits the time limit", async () => {
    const started = Date.now();
    const result = await attempt("for (;;) {}");
    expect(result.error).toMatchObject({
      kind: "timeout",
      message: "The code did not finish within 500 ms and was stopped",
    });
    expect(Date.now() - started).toBeLessThan(3_000);
  });

  it("23. infinite loops after an await and inside a promise callback hit the time limit", async () => {
    const afterAwait = await attempt("await add({ a: 1, b: 1 });\nfor (;;) {}");
    expect(afterAwait.error).toMatchObject({ kind: "timeout", name: "TimeoutError" });
    const inCallback = await attempt(
      "Promise.resolve().then(() => { for (;;) {} });\nawait new Promise(() => {})",
    );
    expect(inCallback.error).toMatchObject({ kind: "timeout", name: "TimeoutError" });
  });

  it("23b. an endless loop of awaits is stopped as a promise flood", async () => {
    const result = await attempt("while (true) { await null }");
    expect(result.error?.message).toBe(
      "The code ran more than 10000 promise jobs in one step (a promise flood) and was stopped",
    );
  });

  it("24. a microtask loop is stopped as a promise flood", async () => {
    const result = await attempt(
      "const spin = () => Promise.resolve().then(spin);\nspin();\nawait new Promise(() => {})",
    );
    expect(result.error).toMatchObject({
      kind: "runtime",
      name: "RangeError",
      message: "The code ran more than 10000 promise jobs in one step (a promise flood) and was stopped",
    });
  });

  it("25. allocating promises without end runs out of memory", async () => {
    const small = await QuickJsExecutor.create({ maxMemoryBytes: 4 * 1024 * 1024 });
    try {
      const result = await small.run("const ps = [];\nfor (;;) ps.push(new Promise(() => {}))");
      expect(result.error).toMatchObject({ kind: "memory", name: "MemoryError", line: 2 });
      expect((await small.run("ps = null; 40 + 2")).output).toBe(42);
    } finally {
      await small.close();
    }
    await expectHealthy();
  });

  it("26. an output flood ends with an output-limit error, keeping head and tail", async () => {
    const result = await attempt('for (let i = 0; ; i++) console.log("line " + i)');
    expect(result.error).toMatchObject({ kind: "output-limit", name: "OutputLimitError" });
    expect(result.logs.startsWith("line 0\nline 1\n")).toBe(true);
    expect(result.logs).toMatch(/\n… \[\d+ characters of output cut\] …\n/);
    expect(result.logs.length).toBeLessThan(2_100);
  });

  it("27. long output without a flood is cut in the middle, not an error", async () => {
    const result = await attempt("for (let i = 0; i < 3000; i++) console.log(i)");
    expect(result.error).toBeUndefined();
    // maxOutputChars 2,000: the first 1,000 printed characters, a marker, the last 1,000.
    const printed = Array.from({ length: 3000 }, (_, i) => `${i}\n`).join("");
    expect(result.logs).toBe(
      `${printed.slice(0, 1000)}\n… [${printed.length - 2000} characters of output cut] …\n${printed.slice(-1000)}`,
    );
  });

  it("28. a tool-call flood stops at the limit, awaited or not", async () => {
    addCalls = 0;
    const awaited = await attempt("for (;;) await add({ a: 1, b: 2 })");
    const flood = {
      kind: "runtime",
      name: "RangeError",
      message:
        "The code made more than 50 tool calls in one step and was stopped; call tools fewer times per step",
    };
    expect(awaited.error).toMatchObject(flood);
    expect(addCalls).toBe(50);
    const unawaited = await attempt("for (let i = 0; i < 1e6; i++) add({ a: i, b: 0 })");
    expect(unawaited.error).toMatchObject(flood);
  });

  it("29. code longer than the limit is refused before it runs", async () => {
    const small = await QuickJsExecutor.create({ maxCodeChars: 100 });
    try {
      const result = await small.run(`"${"x".repeat(200)}"`);
      expect(result.error).toMatchObject({ kind: "runtime", name: "RangeError" });
      expect(result.error?.message).toMatch(/^The code is 202 characters long; the limit is 100/);
    } finally {
      await small.close();
    }
  });
});

describe("QuickJS sandbox: re-entrancy and final_answer abuse", () => {
  it("30. a tool calling back into its executor gets a clear error, no deadlock", async () => {
    const result = await attempt("await reenter({})");
    expect(result.output).toMatch(
      /^ExecutorBusyError: run\(\) was called while this executor is running code/,
    );
  });

  it("31. a tool that lets the re-entrancy error escape ends the run with it", async () => {
    const nested = await QuickJsExecutor.create({
      tools: [
        {
          name: "nest",
          description: "Runs code in the executor running it.",
          inputSchema: { type: "object" },
          execute: () => nested.run("1"),
        },
      ],
    });
    try {
      await expect(nested.run("await nest({})")).rejects.toBeInstanceOf(ExecutorBusyError);
      expect((await nested.run("40 + 2")).output).toBe(42);
    } finally {
      await nested.close();
    }
  });

  it("32. final_answer cannot be caught, and no finally block or later line runs", async () => {
    const result = await attempt(
      'try { final_answer(1) } catch (e) { console.log("caught") } finally { console.log("finally") }\nconsole.log("after")',
    );
    expect(result).toMatchObject({ isFinalAnswer: true, output: 1, logs: "" });
  });

  it("32b. output printed before final_answer is kept, nothing after it", async () => {
    const result = await attempt('console.log("kept");\nfinal_answer("done");\nconsole.log("dropped")');
    expect(result).toMatchObject({ isFinalAnswer: true, output: "done", logs: "kept\n" });
  });

  it("33. final_answer inside a promise chain still ends the step", async () => {
    const result = await attempt(
      'async function f() { final_answer("x") }\nf().catch(() => console.log("caught"));\nconsole.log("after")',
    );
    expect(result).toMatchObject({ isFinalAnswer: true, output: "x", logs: "" });
  });

  it("34. final_answer cannot be replaced or redeclared", async () => {
    const assigned = await attempt("final_answer = null;\nfinal_answer(2)");
    expect(assigned).toMatchObject({ isFinalAnswer: true, output: 2 });
    const declared = await attempt("const final_answer = 1");
    expect(declared.error).toMatchObject({
      kind: "syntax",
      message: '"final_answer" is built in and cannot be declared again; choose another name',
      line: 1,
    });
  });

  it("35. final_answer with a cyclic value is an error the model can fix", async () => {
    const result = await attempt("const c = {};\nc.c = c;\nfinal_answer(c)");
    expect(result.isFinalAnswer).toBe(false);
    expect(result.error).toMatchObject({
      kind: "runtime",
      name: "TypeError",
      message: "the final answer is not JSON-compatible data: circular reference",
      line: 3,
    });
  });

  it("36. odd thrown values become readable errors", async () => {
    expect((await attempt("throw null")).error).toMatchObject({
      kind: "runtime",
      name: "Error",
      message: "Uncaught null",
    });
    expect((await attempt('throw "plain"')).error).toMatchObject({ message: "Uncaught 'plain'" });
    // Only errors made by the tool bridge count as tool errors, whatever their name says.
    const fake = await attempt('const e = new Error("fake");\ne.name = "ToolError";\nthrow e');
    expect(fake.error).toMatchObject({ kind: "runtime", name: "ToolError", message: "fake", line: 1 });
  });
});
