// QuickJS in the OS sandbox (isolation "process"), through the package's entry point: run once
// from sources and once (the built pass of `npm test`) from the installed tarball, whose
// dist/sandbox/ bundles are what the sandboxed process runs.
import { afterAll, describe, expect, it } from "vitest";
import { drainSandboxProcesses, QuickJsExecutor, quickJsExecutorFactory } from "../src/index.js";

afterAll(() => drainSandboxProcesses());

describe('QuickJsExecutor with isolation "process"', () => {
  it("runs steps, keeps state and calls host tools from inside the OS sandbox", async () => {
    const calls: unknown[] = [];
    const executor = await QuickJsExecutor.create({
      isolation: "process",
      tools: [
        {
          name: "add",
          description: "Adds a and b.",
          inputSchema: { type: "object", properties: { a: { type: "number" }, b: { type: "number" } } },
          async execute(input: { a: number; b: number }) {
            calls.push(input);
            return input.a + input.b;
          },
        },
      ],
    });
    try {
      expect(executor.capabilities.isolation).toBe("process");
      expect(quickJsExecutorFactory({ isolation: "process" }).capabilities.isolation).toBe("process");
      expect((await executor.run("const x = 6 * 7;\nx")).output).toBe(42);
      expect((await executor.run("await add({ a: x, b: 1 })")).output).toBe(43);
      expect(calls).toEqual([{ a: 42, b: 1 }]);
      const stopped = await executor.run("while (true) {}", { timeoutMs: 300 });
      expect(stopped.error?.kind).toBe("timeout");
      expect((await executor.run("x")).output).toBe(42);
    } finally {
      await executor.close();
    }
  }, 60_000);

  it("refuses an isolation it does not know, naming the ones it does", async () => {
    await expect(QuickJsExecutor.create({ isolation: "vm" as never })).rejects.toThrow(
      'QuickJsExecutor: isolation must be one of "worker", "process", got "vm"',
    );
  });
});
