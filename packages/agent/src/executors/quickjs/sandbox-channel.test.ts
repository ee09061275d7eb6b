import { MessageChannel } from "node:worker_threads";
import { AbortError, type Tool, type ToolContext } from "@atrium/spec";
import { describe, expect, it } from "vitest";
import { DEFAULT_QUICKJS_LIMITS } from "../../limits.js";
import { QuickJsExecutor } from "./quickjs-executor.js";
import { SandboxWorker, sandboxWorkerExit } from "./sandbox-worker-pool.js";
import {
  ChannelSlot,
  type HostToWorker,
  newChannelMemory,
  SLOT_BYTES,
  type WorkerToHost,
} from "./worker-protocol.js";

const echo: Tool<{ text: string }, string> = {
  name: "echo",
  description: "Returns its text.",
  inputSchema: { type: "object" },
  async execute({ text }) {
    return text;
  },
};

describe("the shared-memory channel (worker-protocol.ts)", () => {
  function slots() {
    const memory = newChannelMemory();
    const { port1, port2 } = new MessageChannel();
    return {
      hostSide: ChannelSlot.toWorker(memory, port1),
      workerSide: ChannelSlot.toWorker(memory, port2),
      close: () => port1.close(),
    };
  }

  it("holds one message at a time, in order, and is empty once taken", () => {
    const { hostSide, workerSide, close } = slots();
    const first: HostToWorker = { type: "reset", id: 1 };
    expect(workerSide.take()).toBeUndefined();
    expect(hostSide.tryPut(first)).toBe(true);
    expect(hostSide.tryPut({ type: "reset", id: 2 })).toBe(false);
    expect(workerSide.take()).toEqual(first);
    expect(workerSide.take()).toBeUndefined();
    expect(hostSide.tryPut({ type: "reset", id: 2 })).toBe(true);
    expect(workerSide.take()).toEqual({ type: "reset", id: 2 });
    close();
  });

  it("sends what does not fit its slot over the port, in UTF-8 bytes (not characters), in order", () => {
    const { hostSide, workerSide, close } = slots();
    // Fewer characters than the slot has bytes, more UTF-8 bytes: the encoder stops short.
    const wide = "é".repeat(SLOT_BYTES * 0.75);
    const huge = "x".repeat(SLOT_BYTES * 3);
    const fits = "é".repeat(SLOT_BYTES / 4);
    const messages: HostToWorker[] = [
      { type: "run", id: 1, runId: 1, code: wide, timeoutMs: 5 },
      { type: "run", id: 2, runId: 2, code: fits, timeoutMs: 5 },
      { type: "run", id: 3, runId: 3, code: huge, timeoutMs: 5 },
    ];
    for (const message of messages) {
      expect(hostSide.tryPut(message)).toBe(true);
      expect(workerSide.take()).toEqual(message);
    }
    close();
  });

  it("carries JSON: an undefined field is left out, undefined in an array arrives as null", () => {
    const memory = newChannelMemory();
    const { port1, port2 } = new MessageChannel();
    const message: WorkerToHost = { type: "tool-call", runId: 1, callId: "c", name: "n", json: "{}" };
    ChannelSlot.toHost(memory, port2).tryPut(message);
    expect(ChannelSlot.toHost(memory, port1).take()).toEqual(message);
    ChannelSlot.toWorker(memory, port1).tryPut({ type: "set-variables", id: 1, entries: [["a", undefined]] });
    expect(ChannelSlot.toWorker(memory, port2).take()).toEqual({
      type: "set-variables",
      id: 1,
      entries: [["a", null]],
    });
    port1.close();
  });
});

describe("QuickJsExecutor over the channel", () => {
  it("code, tool inputs, tool results, variables and outputs larger than a slot cross intact", async () => {
    const executor = await QuickJsExecutor.create({ tools: [echo] });
    try {
      const text = "ü€".repeat(SLOT_BYTES);
      await executor.setVariables({ big: text, missing: undefined });
      const code = `const local = "${"a".repeat(SLOT_BYTES * 2)}";\nconst back = await echo({ text: big + local });\n[back.length, back.slice(-3), typeof missing]`;
      const result = await executor.run(code);
      expect(result.error).toBeUndefined();
      expect(result.output).toEqual([text.length + SLOT_BYTES * 2, "aaa", "undefined"]);
      const output = await executor.run("back");
      expect(output.output).toBe(text + "a".repeat(SLOT_BYTES * 2));
    } finally {
      await executor.close();
    }
  });

  it("a hundred tool results queued behind a full slot all arrive", async () => {
    const executor = await QuickJsExecutor.create({ tools: [echo] });
    try {
      const result = await executor.run(
        "const texts = await Promise.all(Array.from({ length: 100 }, (_, i) => echo({ text: String(i) })));\ntexts.join(',')",
      );
      expect(result.output).toBe(Array.from({ length: 100 }, (_, i) => String(i)).join(","));
    } finally {
      await executor.close();
    }
  });

  it("an abort wakes a worker that waits for a tool: the same sandbox goes on, its state kept", async () => {
    let called!: () => void;
    const calledOnce = new Promise<void>((resolve) => {
      called = resolve;
    });
    const never: Tool = {
      name: "never",
      description: "Never answers.",
      inputSchema: { type: "object" },
      execute(_input: unknown, _context: ToolContext) {
        called();
        return new Promise(() => undefined);
      },
    };
    const executor = await QuickJsExecutor.create({ tools: [never] });
    try {
      await executor.run("const kept = 41");
      const controller = new AbortController();
      const running = executor.run("await never({})", { signal: controller.signal });
      await calledOnce;
      const aborted = performance.now();
      controller.abort();
      await expect(running).rejects.toEqual(new AbortError("The run was aborted"));
      // Far below the stop grace (1 s) after which an unresponsive worker would be replaced.
      expect(performance.now() - aborted).toBeLessThan(500);
      expect((await executor.run("kept + 1")).output).toBe(42);
    } finally {
      await executor.close();
    }
  });

  it("a worker blocked in Atomics.wait (idle) is terminated at once", async () => {
    const worker = await SandboxWorker.spawn();
    // Answered, so the worker is back in its wait for the next request.
    await worker.request({ type: "init", limits: DEFAULT_QUICKJS_LIMITS });
    const terminated = performance.now();
    await worker.terminate();
    expect(performance.now() - terminated).toBeLessThan(500);
    expect(worker.healthy).toBe(false);
    await expect(worker.request({ type: "reset" })).rejects.toEqual(sandboxWorkerExit("terminated"));
  });

  it("a finished tool's signal aborts once its step has ended; the next step's tools get a fresh one", async () => {
    const signals: AbortSignal[] = [];
    const keep: Tool = {
      name: "keep",
      description: "Keeps its signal.",
      inputSchema: { type: "object" },
      async execute(_input: unknown, context: ToolContext) {
        signals.push(context.signal);
        return context.signal.aborted;
      },
    };
    const executor = await QuickJsExecutor.create({ tools: [keep] });
    try {
      expect((await executor.run("await keep({})")).output).toBe(false);
      await new Promise((resolve) => setImmediate(resolve));
      expect((await executor.run("await keep({})")).output).toBe(false);
      await new Promise((resolve) => setImmediate(resolve));
      expect(signals.map((signal) => signal.aborted)).toEqual([true, true]);
      expect(signals[0]).not.toBe(signals[1]);
    } finally {
      await executor.close();
    }
  });
});
