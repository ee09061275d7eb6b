// SandboxedExecutor's watchdog when the host itself was held up (descheduled on a loaded
// machine, a long synchronous task): a sandbox whose answer is already waiting when the host
// runs again is not judged hung, and one that never answers still is.
import { MessageChannel } from "node:worker_threads";
import type { ExecutionResult, ExecutorCapabilities } from "@atrium/spec";
import { afterEach, describe, expect, it } from "vitest";
import { type ExecutorLimits, type ExecutorRun, SandboxedExecutor, type SandboxHost } from "../src/index.js";

/** Holds this thread (and its event loop) for `ms`. */
function blockHost(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/**
 * A sandbox that keeps the deadline itself and answers each run at once, through a
 * MessageChannel: the answer reaches the host the way a worker's or a process's does, as I/O
 * its event loop reads in its poll phase. With `silent`, it never answers.
 */
class FakeSandbox implements SandboxHost<never> {
  onToolCall = undefined;
  healthy = true;
  private readonly channel = new MessageChannel();

  constructor(private readonly silent: boolean) {}

  run(code: string): Promise<string> {
    return new Promise((resolve) => {
      if (this.silent) return;
      this.channel.port2.once("message", resolve);
      this.channel.port1.postMessage(`ran ${code}`);
    });
  }

  async terminate(): Promise<void> {
    this.healthy = false;
    this.channel.port1.close();
  }
}

class FakeExecutor extends SandboxedExecutor<never, FakeSandbox, string> {
  readonly language = "javascript" as const;
  readonly capabilities: ExecutorCapabilities = {
    language: "javascript",
    persistentState: true,
    tools: false,
    isolation: "worker",
    network: "none",
  };
  protected readonly executorName = "FakeExecutor";
  protected readonly limits: Readonly<ExecutorLimits> = {
    timeoutMs: 10,
    stopGraceMs: 10,
    watchdogGraceMs: 10,
    maxTransferChars: 1_000,
    maxOutputChars: 1_000,
    maxErrorChars: 1_000,
  };
  /** Sandboxes acquired: a second one means the first was replaced. */
  readonly sandboxes: FakeSandbox[] = [];

  private constructor(private readonly silent: boolean) {
    super();
  }

  static async create(silent = false): Promise<FakeExecutor> {
    const executor = new FakeExecutor(silent);
    await executor.open(undefined);
    return executor;
  }

  protected async acquireHost(): Promise<FakeSandbox> {
    const sandbox = new FakeSandbox(this.silent);
    this.sandboxes.push(sandbox);
    return sandbox;
  }
  protected async initHost(): Promise<void> {}
  protected async installTools(): Promise<void> {}
  protected async installVariables(): Promise<void> {}
  protected async resetHost(): Promise<void> {}
  protected startRun(host: FakeSandbox, code: string): Promise<string> {
    return host.run(code);
  }
  protected interruptHost(): void {}
  protected toResult(reply: string, run: ExecutorRun, _code: string, started: number): ExecutionResult {
    return {
      output: reply,
      logs: "",
      isFinalAnswer: false,
      images: run.images,
      durationMs: performance.now() - started,
    };
  }
  protected handleToolCall(): void {}
}

const executors: FakeExecutor[] = [];

afterEach(async () => {
  await Promise.all(executors.splice(0).map((executor) => executor.close()));
});

describe("SandboxedExecutor's watchdog", () => {
  it("takes an answer that arrived while the host was held up past the watchdog", async () => {
    const executor = await FakeExecutor.create();
    executors.push(executor);
    // The watchdog is due 20 ms in (timeout + max(timeout, watchdogGraceMs)); the answer is
    // sent at once but read only after the host is back.
    const pending = executor.run("step");
    blockHost(200);
    const result = await pending;
    expect(result.error).toBeUndefined();
    expect(result.output).toBe("ran step");
    expect(executor.sandboxes).toHaveLength(1);
  });

  it("still gives up on a sandbox that does not answer, and replaces it", async () => {
    const executor = await FakeExecutor.create(true);
    executors.push(executor);
    const pending = executor.run("step");
    blockHost(200);
    expect((await pending).error).toEqual({
      kind: "timeout",
      name: "TimeoutError",
      message: "The code did not finish within 10 ms and its sandbox was restarted; every variable is lost",
      stateLost: true,
    });
    await executor.reset();
    expect(executor.sandboxes).toHaveLength(2);
    expect(executor.sandboxes[0]?.healthy).toBe(false);
  });
});
