import type { Worker } from "node:worker_threads";
import type { Tool } from "@atrium/spec";
import { describe, expect, it } from "vitest";
import { QuickJsExecutor } from "./quickjs-executor.js";

/**
 * The worker thread under an executor. Guest code has no way to kill its own worker (that is
 * the point of the sandbox), so the test reaches past two private fields to do what a wasm
 * abort or an engine crash does: end the thread while a run waits for it.
 */
function workerThreadOf(executor: QuickJsExecutor): Worker {
  const sandboxWorker = (executor as unknown as { host: { worker: Worker } }).host;
  return sandboxWorker.worker;
}

/** A tool that ends the executor's worker thread from the host while the run awaits it. */
function dieTool(executor: () => QuickJsExecutor): Tool {
  return {
    name: "die",
    description: "Ends the sandbox's worker thread.",
    inputSchema: { type: "object" },
    async execute() {
      await workerThreadOf(executor()).terminate();
      return "unreachable";
    },
  };
}

const add: Tool = {
  name: "add",
  description: "Adds a and b.",
  inputSchema: { type: "object" },
  async execute(input: { a: number; b: number }) {
    return input.a + input.b;
  },
};

describe("QuickJsExecutor when its sandbox dies", () => {
  it("reports a 'crashed' error with lost state, and the next run works in a new sandbox", async () => {
    let executor!: QuickJsExecutor;
    executor = await QuickJsExecutor.create({ tools: [dieTool(() => executor), add] });
    try {
      expect((await executor.run("const kept = 41;\nkept + 1")).output).toBe(42);
      const result = await executor.run('console.log("before");\nawait die({});\nconsole.log("after");');
      expect({ ...result, durationMs: 0 }).toEqual({
        output: undefined,
        logs: "",
        isFinalAnswer: false,
        images: [],
        durationMs: 0,
        error: {
          kind: "crashed",
          name: "SandboxCrashError",
          message:
            "The sandbox crashed (the sandbox worker exited: exit code 1) and was restarted; every variable is lost",
          stateLost: true,
        },
      });
      const after = await executor.run("typeof kept");
      expect(after.error).toBeUndefined();
      expect(after.output).toBe("undefined");
      // The new sandbox has the tools of the old one.
      expect((await executor.run("await add({ a: 2, b: 3 })")).output).toBe(5);
    } finally {
      await executor.close();
    }
  }, 30_000);
});
