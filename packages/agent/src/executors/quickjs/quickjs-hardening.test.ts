import type { Tool } from "@atrium/spec";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { QuickJsExecutor } from "./quickjs-executor.js";

/**
 * Regression tests for the QuickJS findings of issue 10 (5-10): what crosses the sandbox
 * boundary is bounded and checked, errors cannot be forged, and time overruns are bounded.
 */
let executor: QuickJsExecutor;
let keptInputs = 0;

const tools: Tool[] = [
  {
    name: "keep",
    description: "Keeps its input (counts its characters).",
    inputSchema: { type: "object" },
    async execute(input: { s: string }) {
      keptInputs += input.s.length;
      return input.s.length;
    },
  },
];

beforeAll(async () => {
  executor = await QuickJsExecutor.create({ tools, timeoutMs: 1_000 });
});

afterAll(async () => {
  await executor.close();
});

describe("finding 5: printed output crosses like every other value", () => {
  it("keeps a NUL and what follows it", async () => {
    const result = await executor.run('console.log("visible\\u0000hidden"); console.log("second line")');
    expect(result.error).toBeUndefined();
    expect(result.logs).toBe("visible\u0000hidden\nsecond line\n");
  });

  it("keeps lone surrogates, as tool arguments do", async () => {
    const result = await executor.run('console.log("a\\ud800b\\udc00c")');
    expect(result.logs).toBe("a\ud800b\udc00c\n");
  });
});

describe("finding 6: error kinds cannot be forged", () => {
  it("a replaced WeakSet.prototype.has does not make an error a tool error", async () => {
    const result = await executor.run('WeakSet.prototype.has = () => true;\nthrow new Error("x")');
    expect(result.error).toEqual({
      kind: "runtime",
      name: "Error",
      message: "x",
      line: 2,
      lineText: 'throw new Error("x")',
    });
    await executor.reset();
  });

  it("Object.prototype.toJSON cannot replace the error description", async () => {
    const result = await executor.run(
      'Object.prototype.toJSON = function () { return { isToolError: true, name: 12345, message: 67890 } };\nthrow new Error("x")',
    );
    expect(result.error).toEqual({
      kind: "runtime",
      name: "Error",
      message: "x",
      line: 2,
      lineText: 'throw new Error("x")',
    });
    await executor.reset();
  });

  it("a replaced WeakSet.prototype.add does not unmark a tool error", async () => {
    const failing = await QuickJsExecutor.create({
      tools: [
        {
          name: "fail",
          description: "Always fails.",
          inputSchema: { type: "object" },
          async execute() {
            throw new Error("tool broke");
          },
        },
      ],
    });
    try {
      const result = await failing.run("WeakSet.prototype.add = () => {};\nawait fail({})");
      expect(result.error).toMatchObject({
        kind: "tool",
        name: "ToolError",
        message: 'Tool "fail" failed: tool broke',
        line: 2,
      });
    } finally {
      await failing.close();
    }
  });
});

describe("finding 7: errors have a size limit", () => {
  it("a 20,000,000-character message is cut before it reaches the host", async () => {
    const small = await QuickJsExecutor.create({ maxMemoryBytes: 128 * 1024 * 1024, maxErrorChars: 1_000 });
    try {
      const result = await small.run('throw new Error("E".repeat(2e7))');
      expect(result.error?.kind).toBe("runtime");
      expect(result.error?.message).toBe(`${"E".repeat(1_000)}… [19999000 characters cut]`);
    } finally {
      await small.close();
    }
  });

  it("a long error name is cut too", async () => {
    const result = await executor.run('const e = new Error("m"); e.name = "N".repeat(5000); throw e');
    expect(result.error?.name).toBe(`${"N".repeat(200)}… [4800 characters cut]`);
    expect(result.error?.message).toBe("m");
  });
});

describe("finding 8: a per-step budget for what crosses", () => {
  it("tool arguments past the step budget end the step before they reach the host", async () => {
    const budgeted = await QuickJsExecutor.create({
      tools,
      maxStepTransferChars: 1_000_000,
      maxToolCalls: 200,
    });
    keptInputs = 0;
    try {
      const result = await budgeted.run(
        'const s = "x".repeat(300000);\nfor (let i = 0; i < 200; i++) await keep({ s });\n"done"',
      );
      expect(result.error).toMatchObject({ kind: "output-limit", name: "RangeError" });
      expect(result.error?.message).toBe(
        "The code moved more than 1000000 characters across the sandbox boundary in one step (tool inputs and results, printed output, answers) and was stopped; move less data per step",
      );
      // Three calls fit (each about 300,011 characters of JSON); the fourth is over.
      expect(keptInputs).toBe(900_000);
      expect((await budgeted.run("1 + 1")).output).toBe(2);
    } finally {
      await budgeted.close();
    }
  });
});

describe("finding 9: a FinalizationRegistry callback cannot run in a later step", () => {
  it("an innocent step after one that registered a looping callback finishes", async () => {
    const first = await executor.run(
      [
        "const Registry = globalThis.FinalizationRegistry;",
        "if (Registry) {",
        "  const registry = new Registry(() => { for (;;) {} });",
        "  globalThis.keptRegistry = registry;",
        "  for (let i = 0; i < 1000; i++) registry.register({ i }, i);",
        "}",
        "typeof Registry",
      ].join("\n"),
    );
    // The sandbox has no FinalizationRegistry: its callbacks would run in whatever step comes next.
    expect(first.output).toBe("undefined");
    for (let i = 0; i < 3; i++) {
      const innocent = await executor.run(
        "let junk = []; for (let i = 0; i < 100000; i++) junk.push({ i }); junk = null; 42",
      );
      expect(innocent.error).toBeUndefined();
      expect(innocent.output).toBe(42);
    }
  });
});

describe("finding 10: no step runs past max(2 x limit, limit + 1 s)", () => {
  // Measured on the 2-core machine with other tests running. Before the fix (a fixed 2 s watchdog
  // grace, and the run waiting for the new worker): 3.4 s, 3.5 s and 3.5 s. After it: 1.51 s,
  // 2.01 s and 2.00 s (each ended by the watchdog at 2 x limit, resp. limit + 1 s). The 400 ms
  // margin allows for a loaded machine.
  const cases: [string, number, string][] = [
    [
      "a one-million-number sort",
      500,
      "const a = []; for (let i = 0; i < 1e6; i++) a.push(Math.random()); a.sort(); a.length",
    ],
    [
      "an out-of-memory catch loop",
      1_000,
      'const keep = []; for (;;) { try { keep.push("x".repeat(1e6) + keep.length) } catch {} }',
    ],
    ["a loop of huge repeats", 1_000, 'for (;;) "x".repeat(2e7)'],
  ];
  for (const [name, limit, code] of cases) {
    it(`${name} under ${limit} ms`, async () => {
      const bounded = await QuickJsExecutor.create({ timeoutMs: limit });
      try {
        const started = performance.now();
        const result = await bounded.run(code);
        const took = performance.now() - started;
        expect(took).toBeLessThan(Math.max(2 * limit, limit + 1_000) + 400);
        if (result.error) expect(["timeout", "memory"]).toContain(result.error.kind);
        expect((await bounded.run("40 + 2")).output).toBe(42);
      } finally {
        await bounded.close();
      }
    });
  }
});
