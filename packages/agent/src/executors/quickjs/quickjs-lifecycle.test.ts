import {
  AbortError,
  ClosedError,
  LimitError,
  richToolResult,
  type Tool,
  type ToolContext,
} from "@atrium/spec";
import { PIXEL_PNG } from "@atrium/spec/testing";
import { describe, expect, it } from "vitest";
import type { ToolCallEvent } from "../index.js";
import { QuickJsExecutor } from "./quickjs-executor.js";

/** A tool that waits until its signal aborts, and tells when it was called. */
function blockingTool() {
  let called!: () => void;
  const calledOnce = new Promise<void>((resolve) => {
    called = resolve;
  });
  let signal: AbortSignal | undefined;
  const tool: Tool = {
    name: "wait",
    description: "Waits until the run ends.",
    inputSchema: { type: "object" },
    execute(_input: unknown, context: ToolContext) {
      signal = context.signal;
      called();
      return new Promise((_, reject) =>
        context.signal.addEventListener("abort", () => reject(new Error("stopped"))),
      );
    },
  };
  return { tool, calledOnce, signal: () => signal };
}

function throwing(name: string, value: () => unknown): Tool {
  return {
    name,
    description: "Throws.",
    inputSchema: { type: "object" },
    async execute() {
      throw value();
    },
  };
}

describe("QuickJsExecutor lifecycle", () => {
  it("close during a pending tool call rejects the run with CLOSED and aborts the tool", async () => {
    const blocking = blockingTool();
    const executor = await QuickJsExecutor.create({ tools: [blocking.tool] });
    const running = executor.run("await wait({})").then(
      () => "resolved",
      (error: unknown) => error,
    );
    await blocking.calledOnce;
    await executor.close();
    const outcome = await running;
    expect(outcome).toBeInstanceOf(ClosedError);
    expect(blocking.signal()?.aborted).toBe(true);
    await expect(executor.run("1")).rejects.toBeInstanceOf(ClosedError);
  });

  it("close twice (also concurrently) resolves, and every method then throws CLOSED", async () => {
    const executor = await QuickJsExecutor.create();
    await Promise.all([executor.close(), executor.close()]);
    await executor.close();
    await expect(executor.run("1")).rejects.toBeInstanceOf(ClosedError);
    await expect(executor.setTools([])).rejects.toBeInstanceOf(ClosedError);
    await expect(executor.setVariables({ a: 1 })).rejects.toBeInstanceOf(ClosedError);
    await expect(executor.reset()).rejects.toBeInstanceOf(ClosedError);
  });

  it("reset with nothing defined keeps tools working", async () => {
    const executor = await QuickJsExecutor.create({
      tools: [{ name: "one", description: "1", inputSchema: {}, execute: async () => 1 }],
    });
    try {
      await executor.reset();
      await executor.reset();
      expect((await executor.run("await one()")).output).toBe(1);
    } finally {
      await executor.close();
    }
  });

  it("abort during a tool call rejects with ABORTED, aborts the tool, and the executor stays usable", async () => {
    const blocking = blockingTool();
    const executor = await QuickJsExecutor.create({ tools: [blocking.tool] });
    try {
      const controller = new AbortController();
      const running = executor.run("await wait({})", { signal: controller.signal });
      await blocking.calledOnce;
      controller.abort();
      await expect(running).rejects.toBeInstanceOf(AbortError);
      expect(blocking.signal()?.aborted).toBe(true);
      expect((await executor.run("40 + 2")).output).toBe(42);
    } finally {
      await executor.close();
    }
  });

  it("a time limit reached while a tool runs ends the step and aborts the tool", async () => {
    const blocking = blockingTool();
    const executor = await QuickJsExecutor.create({ tools: [blocking.tool] });
    try {
      const result = await executor.run("console.log('before');\nawait wait({})", { timeoutMs: 200 });
      expect(result.error).toEqual({
        kind: "timeout",
        name: "TimeoutError",
        message: "The code did not finish within 200 ms and was stopped",
      });
      expect(result.logs).toBe("before\n");
      expect(blocking.signal()?.aborted).toBe(true);
      expect((await executor.run("40 + 2")).output).toBe(42);
    } finally {
      await executor.close();
    }
  });

  it("a run while another runs is refused with ExecutorBusyError", async () => {
    const executor = await QuickJsExecutor.create({ timeoutMs: 200 });
    try {
      const first = executor.run("for (;;) {}");
      await expect(executor.run("1")).rejects.toMatchObject({ name: "ExecutorBusyError", code: "CONFIG" });
      await expect(executor.setVariables({ a: 1 })).rejects.toMatchObject({ name: "ExecutorBusyError" });
      expect((await first).error?.kind).toBe("timeout");
    } finally {
      await executor.close();
    }
  });

  it("errors thrown by tools with odd values become readable tool errors", async () => {
    const getterTrap = {
      get message(): string {
        throw new Error("trap");
      },
    };
    const executor = await QuickJsExecutor.create({
      tools: [
        throwing("nil", () => null),
        throwing("num", () => 42),
        throwing("text", () => "plain text"),
        throwing("obj", () => ({ code: 7 })),
        throwing("trap", () => getterTrap),
        throwing("cyclic", () => {
          const value: Record<string, unknown> = {};
          value.self = value;
          return value;
        }),
      ],
    });
    try {
      const code = [
        "const messages = [];",
        "for (const tool of [nil, num, text, obj, trap, cyclic]) {",
        "  try { await tool({}) } catch (e) { messages.push(e.name + ': ' + e.message) }",
        "}",
        "messages",
      ].join("\n");
      const result = await executor.run(code);
      expect(result.error).toBeUndefined();
      expect(result.output).toEqual([
        'ToolError: Tool "nil" failed: it threw null',
        'ToolError: Tool "num" failed: it threw 42',
        'ToolError: Tool "text" failed: plain text',
        'ToolError: Tool "obj" failed: it threw a non-Error value: {"code":7}',
        'ToolError: Tool "trap" failed: it threw a value that cannot be read',
        'ToolError: Tool "cyclic" failed: it threw a non-Error value: [object Object]',
      ]);
    } finally {
      await executor.close();
    }
  });

  it("an uncaught tool error is kind 'tool' with the line of the call", async () => {
    const executor = await QuickJsExecutor.create({ tools: [throwing("fail", () => new Error("nope"))] });
    try {
      const result = await executor.run("const a = 1;\nawait fail({});\nconsole.log('after')");
      expect(result.error).toEqual({
        kind: "tool",
        name: "ToolError",
        message: 'Tool "fail" failed: nope',
        line: 2,
        lineText: "await fail({});",
      });
      expect(result.logs).toBe("");
    } finally {
      await executor.close();
    }
  });

  it("a fatal error from a tool ends the run by rejecting with it", async () => {
    const executor = await QuickJsExecutor.create({
      tools: [throwing("budget", () => new LimitError("budget", "out of budget"))],
    });
    try {
      await expect(executor.run("try { await budget({}) } catch (e) { 'swallowed' }")).rejects.toMatchObject({
        code: "LIMIT_EXCEEDED",
        message: "out of budget",
      });
      expect((await executor.run("1 + 1")).output).toBe(2);
    } finally {
      await executor.close();
    }
  });

  it("validates tool input: a catchable error naming the field, kind 'tool' when uncaught", async () => {
    const calls: unknown[] = [];
    const executor = await QuickJsExecutor.create({
      tools: [
        {
          name: "square",
          description: "Squares n.",
          inputSchema: { type: "object", properties: { n: { type: "number" } } },
          validate(input: unknown) {
            const n = (input as { n?: unknown }).n;
            return typeof n === "number"
              ? { ok: true, value: { n } }
              : { ok: false, issues: [{ path: ["n"], message: "expected a number" }] };
          },
          async execute(input: { n: number }) {
            calls.push(input);
            return input.n * input.n;
          },
        },
      ],
    });
    try {
      const caught = await executor.run(
        'let seen;\ntry { await square({ n: "4" }) } catch (e) { seen = e.name + ": " + e.message }\nseen',
      );
      expect(caught.output).toBe('ValidationError: Invalid input for tool "square": n: expected a number');
      const uncaught = await executor.run("await square({})");
      expect(uncaught.error).toMatchObject({ kind: "tool", name: "ValidationError", line: 1 });
      expect((await executor.run("await square({ n: 4 })")).output).toBe(16);
      expect(calls).toEqual([{ n: 4 }]);
    } finally {
      await executor.close();
    }
  });

  it("reports tool calls, progress and results to onToolCall, and collects images", async () => {
    const events: ToolCallEvent[] = [];
    const executor = await QuickJsExecutor.create({
      onToolCall: (event) => events.push(event),
      tools: [
        {
          name: "shoot",
          description: "Takes a picture.",
          inputSchema: { type: "object" },
          async execute(input: { label: string }, context: ToolContext) {
            context.onProgress?.({ progress: 1, total: 2, message: "focusing" });
            return richToolResult({ label: input.label, at: new Date(0) }, [PIXEL_PNG]);
          },
        },
      ],
    });
    try {
      const result = await executor.run('const shot = await shoot({ label: "cat", skip: undefined });\nshot');
      expect(result.output).toEqual({ label: "cat", at: "1970-01-01T00:00:00.000Z" });
      expect(result.images).toEqual([PIXEL_PNG]);
      const id = (events[0] as { id: string }).id;
      expect(events.map((event) => ({ ...event, durationMs: undefined }))).toEqual([
        { type: "tool-call", id, name: "shoot", input: { label: "cat" }, durationMs: undefined },
        {
          type: "tool-progress",
          id,
          name: "shoot",
          progress: { progress: 1, total: 2, message: "focusing" },
          durationMs: undefined,
        },
        {
          type: "tool-result",
          id,
          name: "shoot",
          output: { label: "cat", at: new Date(0) },
          images: [PIXEL_PNG],
          durationMs: undefined,
        },
      ]);
    } finally {
      await executor.close();
    }
  });

  it("setVariables copies JSON-compatible data and refuses what cannot cross", async () => {
    const executor = await QuickJsExecutor.create({
      tools: [{ name: "tool1", description: "t", inputSchema: {}, execute: async () => 1 }],
    });
    try {
      const cyclic: Record<string, unknown> = {};
      cyclic.self = cyclic;
      await expect(executor.setVariables({ bad: cyclic })).rejects.toThrow(
        /setVariables: "bad" is not JSON-compatible data: .*circular/i,
      );
      await expect(executor.setVariables({ tool1: 1 })).rejects.toThrow(/"tool1" cannot be a variable name/);
      await expect(executor.setVariables({ "not a name": 1 })).rejects.toThrow(/cannot be a variable name/);
      const host = { when: new Date(0), big: 10n, gone: undefined, fn() {} };
      await executor.setVariables({ host, nothing: undefined });
      const result = await executor.run("[host, typeof nothing, Object.keys(host).join()]");
      expect(result.output).toEqual([
        { when: "1970-01-01T00:00:00.000Z", big: "10" },
        "undefined",
        "when,big",
      ]);
      host.when = new Date(1);
      expect((await executor.run("host.when")).output).toBe("1970-01-01T00:00:00.000Z");
    } finally {
      await executor.close();
    }
  });

  it("setTools refuses names the sandbox cannot use", async () => {
    const executor = await QuickJsExecutor.create();
    try {
      const tool = (name: string): Tool => ({
        name,
        description: "",
        inputSchema: {},
        execute: async () => 1,
      });
      await expect(executor.setTools([tool("final_answer")])).rejects.toThrow(
        /"final_answer" cannot be a tool name/,
      );
      await expect(executor.setTools([tool("has-dash")])).rejects.toThrow(/"has-dash" cannot be a tool name/);
      await expect(executor.setTools([tool("twice"), tool("twice")])).rejects.toThrow(
        /two tools are named "twice"/,
      );
      await executor.setTools([tool("first")]);
      await executor.setTools([tool("second")]);
      expect((await executor.run("[typeof first, typeof second]")).output).toEqual(["undefined", "function"]);
    } finally {
      await executor.close();
    }
  });

  it("keeps notebook state: declarations of every kind, redeclaration, destructuring, classes", async () => {
    const executor = await QuickJsExecutor.create();
    try {
      const steps = [
        "const { a, b: [c] } = { a: 1, b: [2] };\nlet d;\nvar e = 5;\nclass Point { constructor(x) { this.x = x } }",
        "const a = 10;\nfor (var i = 0; i < 3; i++) {}\nif (true) { var nested = 'yes' }",
        "const p = new Point(3);\nasync function later() { return a + c }",
        "[a, c, d, e, i, nested, p.x, await later()]",
      ];
      for (const code of steps.slice(0, -1)) expect((await executor.run(code)).error).toBeUndefined();
      expect((await executor.run(steps[3] as string)).output).toEqual([10, 2, null, 5, 3, "yes", 3, 12]);
    } finally {
      await executor.close();
    }
  });
});

describe("QuickJsExecutor watchdog", () => {
  // Sorting 16M doubles is one call into QuickJS's C code (about 4 s here), where the interrupt
  // handler is not consulted: the host must give up on the worker. (An allocation loop up to the
  // memory limit was used before; on an idle machine it hit the limit before the watchdog fired.)
  // The array is filled in a step of its own, mostly by C-level copies, so the stuck step is the
  // sort alone whatever the machine's speed.
  const fill =
    "var data = new Float64Array(1 << 24);\nfor (let i = 0; i < 65536; i++) data[i] = Math.sin(i);\nfor (let n = 65536; n < data.length; n *= 2) data.set(data.subarray(0, n), n)";
  const stuck = "data.sort()";
  const maxMemoryBytes = 256 * 1024 * 1024;
  const fillTimeoutMs = 60_000;

  it("a worker stuck past the time limit is replaced, with stateLost, and the executor stays usable", async () => {
    const executor = await QuickJsExecutor.create({ timeoutMs: 300, maxMemoryBytes });
    try {
      await executor.run("const keep = 1");
      expect((await executor.run(fill, { timeoutMs: fillTimeoutMs })).error).toBeUndefined();
      const result = await executor.run(stuck);
      expect(result.error).toEqual({
        kind: "timeout",
        name: "TimeoutError",
        message:
          "The code did not finish within 300 ms and its sandbox was restarted; every variable is lost",
        stateLost: true,
      });
      expect((await executor.run("typeof keep")).output).toBe("undefined");
    } finally {
      await executor.close();
    }
  }, 30_000);

  it("abort and close do not wait for a stuck worker", async () => {
    const executor = await QuickJsExecutor.create({ maxMemoryBytes });
    expect((await executor.run(fill, { timeoutMs: fillTimeoutMs })).error).toBeUndefined();
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    await expect(executor.run(stuck, { signal: controller.signal })).rejects.toThrow(
      "The run was aborted; its sandbox did not stop in time and was restarted, so every variable is lost",
    );
    expect((await executor.run("40 + 2")).output).toBe(42);
    expect((await executor.run(fill, { timeoutMs: fillTimeoutMs })).error).toBeUndefined();
    const running = executor.run(stuck).catch((error: unknown) => error);
    await new Promise((resolve) => setTimeout(resolve, 100));
    const closing = Date.now();
    await executor.close();
    expect(Date.now() - closing).toBeLessThan(5_000);
    expect(await running).toBeInstanceOf(ClosedError);
  }, 30_000);
});

describe("QuickJsExecutor memory", () => {
  it("1,000 runs keep memory flat", async () => {
    const executor = await QuickJsExecutor.create({
      tools: [{ name: "echo", description: "e", inputSchema: {}, execute: async (input: unknown) => input }],
    });
    try {
      const step = (i: number) =>
        executor.run(
          `const item = { i: ${i}, text: "step ${i}" };\nfunction describe(x) { return x.text }\nconsole.log(describe(item));\nawait echo(item)`,
        );
      for (let i = 0; i < 50; i++) await step(i);
      const before = await executor.memoryUsage();
      const hostBefore = process.memoryUsage().heapUsed;
      for (let i = 50; i < 1_050; i++) {
        const result = await step(i);
        if (result.error) throw new Error(JSON.stringify(result.error));
      }
      const after = await executor.memoryUsage();
      const hostAfter = process.memoryUsage().heapUsed;
      expect(after.usedBytes - before.usedBytes).toBeLessThan(64 * 1024);
      expect(after.wasmBytes).toBe(before.wasmBytes);
      expect(hostAfter - hostBefore).toBeLessThan(32 * 1024 * 1024);
    } finally {
      await executor.close();
    }
  }, 120_000);

  it("creating and closing 200 executors does not grow the process", async () => {
    for (let i = 0; i < 20; i++) await (await QuickJsExecutor.create()).close();
    const before = process.memoryUsage();
    for (let i = 0; i < 200; i++) {
      const executor = await QuickJsExecutor.create();
      expect((await executor.run(`${i} + 1`)).output).toBe(i + 1);
      await executor.close();
    }
    const after = process.memoryUsage();
    expect(after.heapUsed - before.heapUsed).toBeLessThan(32 * 1024 * 1024);
    expect(after.rss - before.rss).toBeLessThan(128 * 1024 * 1024);
  }, 120_000);
});
