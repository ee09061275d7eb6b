import { describeThrown, runSandboxToolCall, type ToolCallEvent, toJsonText } from "@atrium/kit";
import {
  AbortError,
  ClosedError,
  type CodeExecutor,
  ConfigError,
  type ExecutionError,
  type ExecutionResult,
  type ExecutorCapabilities,
  type ImagePart,
  type RunOptions,
  TOOL_NAME_PATTERN,
  type Tool,
} from "@atrium/spec";
import { DEFAULT_QUICKJS_LIMITS, type QuickJsLimits, resolveQuickJsLimits } from "../../limits.js";
import { ExecutorBusyError } from "../executor-errors.js";
import { fromJsonText } from "./json-crossing.js";
import { QUICKJS_ISOLATIONS, type QuickJsIsolation, quickJsCapabilities } from "./quickjs-capabilities.js";
import { RESERVED_NAMES } from "./reserved-names.js";
import type { QuickJsSandboxHandle } from "./sandbox-handle.js";
import { acquireSandbox, prewarmSandboxes, releaseSandbox } from "./sandbox-pools.js";
import { SandboxWorkerExit } from "./sandbox-worker-pool.js";
import {
  checkMemory,
  checkRunResult,
  checkToolCall,
  MalformedWorkerMessage,
} from "./worker-message-checks.js";
import type { SandboxMemory, SessionRunResult, ToolOutcome, WorkerToHost } from "./worker-protocol.js";

/** Every limit of `QuickJsLimits` is an option (its default in `DEFAULT_QUICKJS_LIMITS`). */
export interface QuickJsExecutorOptions extends Partial<QuickJsLimits> {
  /** Observes every tool call the code makes (call, progress, result). */
  onToolCall?: (event: ToolCallEvent) => void;
  /** Tools to install right away (same as `setTools`). */
  tools?: readonly Tool[];
  /**
   * What separates the code from the host: "worker" (the default) runs QuickJS in a worker
   * thread of this process; "process" runs that worker inside an OS-sandboxed process (Linux
   * with bubblewrap), at a cost of a pipe crossing per step (see the README's figures).
   */
  isolation?: QuickJsIsolation;
}

/** Why the host stopped a run; decides what `run` throws. */
type HostStop = { type: "abort" } | { type: "closed" } | { type: "fatal"; error: unknown };

interface ActiveRun {
  id: number;
  /**
   * Aborts the signal of the run's tool calls when the run ends. Made (or taken from a spare)
   * by the first tool call: building one and aborting it (an event and a DOMException with a
   * stack) costs as much as a trivial step, so neither happens where a run waits for it.
   */
  controller?: AbortController;
  /** Tool calls of this run whose `execute` has not settled yet. */
  toolsRunning: number;
  images: ImagePart[];
  stop?: HostStop;
  /** Gives up on the worker (it does not answer); armed by the watchdog and by a stop. */
  giveUp: () => void;
  giveUpTimers: ReturnType<typeof setTimeout>[];
  /** The worker sent a message that failed its checks: the sandbox is broken. */
  malformed?: MalformedWorkerMessage;
}

const VARIABLE_NAME = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
/** Run ids are unique in the process, so a late message can never reach another executor's run. */
let lastRunId = 0;

/**
 * A `CodeExecutor` for JavaScript on QuickJS (quickjs-emscripten). The interpreter lives in a
 * worker thread with its own wasm instance, so guest code never blocks the host's event loop
 * and can always be stopped. Notebook semantics (top-level declarations persist, top-level
 * `await`, the last expression is the output), tools as async functions bridged to the host,
 * and limits on time, memory, stack, output, tool calls and promise jobs. See the README.
 */
/**
 * The reason a step's tool signal aborts with. One shared instance: `abort()` without a reason
 * builds a DOMException with a stack trace on every tool step, a measurable part of its cost.
 */
const STEP_ENDED = new AbortError("the step that called this tool ended");

export class QuickJsExecutor implements CodeExecutor {
  readonly language = "javascript" as const;
  readonly capabilities: ExecutorCapabilities;
  readonly isolation: QuickJsIsolation;
  private worker!: QuickJsSandboxHandle;
  private tools = new Map<string, Tool>();
  private active: ActiveRun | undefined;
  private activeCompletion: Promise<unknown> | undefined;
  private closing: Promise<void> | undefined;
  private readonly limits: Readonly<QuickJsLimits>;
  private readonly onToolCall: ((event: ToolCallEvent) => void) | undefined;
  /** A fresh controller for the next run's tool calls, made while the host was idle. */
  private spareController: AbortController | undefined;
  /**
   * The replacement of a lost worker, started when a run gave up on it: the run returns at once
   * (its time bound holds) and the next operation waits for the new worker.
   */
  private replacement: Promise<void> | undefined;

  private constructor(options: QuickJsExecutorOptions) {
    const overrides: Partial<Record<keyof QuickJsLimits, number>> = {};
    for (const field of Object.keys(DEFAULT_QUICKJS_LIMITS) as (keyof QuickJsLimits)[]) {
      overrides[field] = options[field];
    }
    this.limits = resolveQuickJsLimits(overrides);
    this.onToolCall = options.onToolCall;
    const isolation = options.isolation ?? "worker";
    if (!QUICKJS_ISOLATIONS.includes(isolation)) {
      throw new ConfigError(
        `QuickJsExecutor: isolation must be one of ${QUICKJS_ISOLATIONS.map((name) => `"${name}"`).join(", ")}, got ${JSON.stringify(isolation)}`,
      );
    }
    this.isolation = isolation;
    this.capabilities = quickJsCapabilities(isolation);
  }

  /** Creates an executor; reuses an idle sandbox worker when there is one. */
  static async create(options: QuickJsExecutorOptions = {}): Promise<QuickJsExecutor> {
    const executor = new QuickJsExecutor(options);
    await executor.attachWorker();
    if (options.tools) await executor.setTools(options.tools);
    return executor;
  }

  /**
   * Boots sandbox workers ahead of need (at most 4 are kept idle): the first `create()` otherwise
   * waits for a thread to start (tens of milliseconds; about a second from TypeScript sources).
   */
  static async prewarm(count = 1, isolation: QuickJsIsolation = "worker"): Promise<void> {
    await prewarmSandboxes(count, isolation);
  }

  async run(code: string, options: RunOptions = {}): Promise<ExecutionResult> {
    this.assertIdle("run()");
    if (typeof code !== "string") throw new ConfigError("run(code): code must be a string");
    if (options.signal?.aborted) throw new AbortError("The run was aborted before it started");
    const timeoutMs = positive("timeoutMs", options.timeoutMs ?? this.limits.timeoutMs);
    const run: ActiveRun = {
      id: ++lastRunId,
      toolsRunning: 0,
      images: [],
      giveUp: () => {},
      giveUpTimers: [],
    };
    this.active = run;
    const completion = this.execute(code, run, timeoutMs, options.signal);
    this.activeCompletion = completion.catch(() => undefined);
    try {
      return await completion;
    } finally {
      this.active = undefined;
      this.activeCompletion = undefined;
    }
  }

  async setTools(tools: readonly Tool[]): Promise<void> {
    this.assertIdle("setTools()");
    const next = new Map<string, Tool>();
    for (const tool of tools) {
      if (!TOOL_NAME_PATTERN.test(tool.name) || RESERVED_NAMES.has(tool.name)) {
        throw new ConfigError(
          `setTools: "${tool.name}" cannot be a tool name in the sandbox; use an identifier (${TOOL_NAME_PATTERN}) other than ${[...RESERVED_NAMES].join(", ")}`,
        );
      }
      if (next.has(tool.name))
        throw new ConfigError(`setTools: two tools are named "${tool.name}"; names must be unique`);
      next.set(tool.name, tool);
    }
    this.tools = next;
    await (await this.ready()).request({ type: "set-tools", names: [...next.keys()] });
  }

  async setVariables(variables: Record<string, unknown>): Promise<void> {
    this.assertIdle("setVariables()");
    const entries: [string, string | undefined][] = [];
    for (const [name, value] of Object.entries(variables)) {
      if (!VARIABLE_NAME.test(name) || RESERVED_NAMES.has(name) || this.tools.has(name)) {
        throw new ConfigError(
          `setVariables: "${name}" cannot be a variable name; use an identifier that is not a tool name or one of ${[...RESERVED_NAMES].join(", ")}`,
        );
      }
      let json: string | undefined;
      try {
        json = toJsonText(value);
      } catch (error) {
        throw new ConfigError(
          `setVariables: "${name}" is not JSON-compatible data: ${describeThrown(error)}`,
        );
      }
      if (json !== undefined && json.length > this.limits.maxTransferChars) {
        throw new ConfigError(
          `setVariables: "${name}" is ${json.length} characters of JSON; the limit is ${this.limits.maxTransferChars} (maxTransferChars)`,
        );
      }
      entries.push([name, json]);
    }
    try {
      await (await this.ready()).request({ type: "set-variables", entries });
    } catch (error) {
      throw new ConfigError(`setVariables: ${describeThrown(error)}`, { cause: error });
    }
  }

  async reset(): Promise<void> {
    this.assertIdle("reset()");
    await (await this.ready()).request({ type: "reset" });
  }

  /** The sandbox's memory: bytes QuickJS has allocated, and the size of its wasm memory. */
  async memoryUsage(): Promise<SandboxMemory> {
    this.assertIdle("memoryUsage()");
    return checkMemory(await (await this.ready()).request({ type: "memory" }));
  }

  async close(): Promise<void> {
    this.closing ??= (async () => {
      if (this.active) this.stopRun(this.active, { type: "closed" });
      await this.activeCompletion;
      await this.replacement?.catch(() => undefined);
      await releaseSandbox(this.worker);
    })();
    await this.closing;
  }

  /** `await using executor = await QuickJsExecutor.create()` closes it at the end of the block. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  private async execute(
    code: string,
    run: ActiveRun,
    timeoutMs: number,
    signal: AbortSignal | undefined,
  ): Promise<ExecutionResult> {
    const started = performance.now();
    const onAbort = () => this.stopRun(run, { type: "abort" });
    signal?.addEventListener("abort", onAbort, { once: true });
    const hung = new Promise<"hung">((resolve) => {
      run.giveUp = () => resolve("hung");
    });
    let outcome: SessionRunResult | "hung" | SandboxWorkerExit;
    try {
      // No await on the common path: an idle await per step is measurable on trivial steps.
      const worker = this.replacement ? await this.ready() : this.worker;
      // Native work (a sort, a big allocation) does not check the interrupt flag, so the worker
      // gets as long again as the timeout (at least watchdogGraceMs) before it is given up on:
      // no run lasts past max(2 × timeout, timeout + watchdogGraceMs).
      const graceMs = Math.max(timeoutMs, this.limits.watchdogGraceMs);
      run.giveUpTimers.push(setTimeout(run.giveUp, timeoutMs + graceMs));
      worker.clearStop();
      const reply = await Promise.race([
        worker.request({ type: "run", runId: run.id, code, timeoutMs }),
        hung,
      ]);
      outcome = reply === "hung" ? reply : checkRunResult(reply, this.limits);
    } catch (error) {
      if (error instanceof MalformedWorkerMessage) run.malformed ??= error;
      else if (!(error instanceof SandboxWorkerExit)) throw error;
      outcome = run.malformed ? new SandboxWorkerExit(run.malformed.message) : (error as SandboxWorkerExit);
    } finally {
      for (const timer of run.giveUpTimers) clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
      this.endToolSignal(run);
    }
    const workerLost =
      outcome === "hung" || outcome instanceof SandboxWorkerExit || run.malformed !== undefined;
    // A worker that stopped answering (or died) is replaced; everything it held is gone.
    if (run.malformed && outcome === "hung") outcome = new SandboxWorkerExit(run.malformed.message);
    if (workerLost && run.stop?.type === "closed") await this.worker.terminate();
    else if (workerLost) this.startReplacement();
    if (run.stop?.type === "abort") {
      throw new AbortError(
        workerLost
          ? "The run was aborted; its sandbox did not stop in time and was restarted, so every variable is lost"
          : "The run was aborted",
      );
    }
    if (run.stop?.type === "closed") throw new ClosedError("QuickJsExecutor");
    if (run.stop?.type === "fatal") throw run.stop.error;
    const base = { images: run.images, durationMs: performance.now() - started };
    if (outcome === "hung" || outcome instanceof SandboxWorkerExit) {
      const error: ExecutionError =
        outcome === "hung"
          ? {
              kind: "timeout",
              name: "TimeoutError",
              message: `The code did not finish within ${timeoutMs} ms and its sandbox was restarted; every variable is lost`,
              stateLost: true,
            }
          : {
              // The worker died (a wasm abort, an out-of-memory in the engine, a terminate):
              // not a limit the code hit, so not "memory".
              kind: "crashed",
              name: "SandboxCrashError",
              message: `The sandbox crashed (${outcome.message}) and was restarted; every variable is lost`,
              stateLost: true,
            };
      return { ...base, output: undefined, logs: "", isFinalAnswer: false, error };
    }
    return {
      ...base,
      output: fromJsonText(outcome.outputJson),
      logs: outcome.logs,
      isFinalAnswer: outcome.isFinalAnswer,
      ...(outcome.error ? { error: outcome.error } : {}),
    };
  }

  private stopRun(run: ActiveRun, stop: HostStop): void {
    if (run.stop) return;
    run.stop = stop;
    run.controller?.abort(STEP_ENDED);
    this.worker.stop();
    // Guest code stops within microseconds of the flag; a worker stuck in a long native call
    // (some allocations near the memory limit) is given up on instead of waited for.
    run.giveUpTimers.push(setTimeout(run.giveUp, this.limits.stopGraceMs));
  }

  private handleToolCall(message: Extract<WorkerToHost, { type: "tool-call" }>): void {
    const run = this.active;
    const worker = this.worker;
    const { runId, callId, name } = message;
    const reply = (outcome: ToolOutcome) => {
      // A result that arrives after its run ended is dropped: the worker may serve others now.
      if (this.active === run) worker.post({ type: "tool-result", runId, callId, outcome });
    };
    const tool = this.tools.get(name);
    if (!run || run.id !== runId || run.stop) return;
    try {
      checkToolCall(message, this.limits);
    } catch (error) {
      if (!(error instanceof MalformedWorkerMessage)) throw error;
      run.malformed ??= error;
      run.giveUp();
      return;
    }
    if (!tool) {
      reply({ ok: false, name: "ReferenceError", message: `${name} is not a tool` });
      return;
    }
    let input: unknown;
    try {
      input = fromJsonText(message.json);
    } catch (error) {
      reply({
        ok: false,
        name: "TypeError",
        message: `the input of ${name} is not valid JSON: ${describeThrown(error)}`,
      });
      return;
    }
    run.controller ??= this.spareController ?? new AbortController();
    this.spareController = undefined;
    run.toolsRunning++;
    void runSandboxToolCall({
      tool,
      input,
      id: callId,
      signal: run.controller.signal,
      images: run.images,
      maxJsonChars: this.limits.maxTransferChars,
      limitName: "maxTransferChars",
      maxErrorChars: this.limits.maxErrorChars,
      ...(this.onToolCall ? { onToolCall: this.onToolCall } : {}),
    }).then((outcome) => {
      run.toolsRunning--;
      if ("fatal" in outcome) this.stopRun(run, { type: "fatal", error: outcome.fatal });
      else reply(outcome);
    });
  }

  /**
   * Aborts the run's tool signal. A tool still running learns it before `run` returns; when every
   * tool call has settled, the abort (and a spare controller for the next run) waits for the
   * event loop's next turn, off the path of the result.
   */
  private endToolSignal(run: ActiveRun): void {
    const controller = run.controller;
    if (!controller) return;
    if (run.toolsRunning > 0) {
      controller.abort(STEP_ENDED);
      return;
    }
    setImmediate(() => {
      controller.abort(STEP_ENDED);
      this.spareController ??= new AbortController();
    });
  }

  private async attachWorker(): Promise<void> {
    const worker = await acquireSandbox(this.isolation);
    try {
      await worker.request({ type: "init", limits: this.limits });
    } catch (error) {
      await worker.terminate();
      throw error;
    }
    worker.onToolCall = (message) => this.handleToolCall(message);
    this.worker = worker;
  }

  private async replaceWorker(): Promise<void> {
    const old = this.worker;
    await old.terminate();
    await this.attachWorker();
    if (this.tools.size) await this.worker.request({ type: "set-tools", names: [...this.tools.keys()] });
  }

  private startReplacement(): void {
    const replacement = this.replaceWorker();
    this.replacement = replacement;
    // Its failure is reported to the operation that waits for it (`ready`), not unhandled.
    replacement.catch(() => undefined);
  }

  /**
   * The worker, once a replacement under way is done. A failed replacement is this operation's
   * error, and the next operation tries again.
   */
  private async ready(): Promise<QuickJsSandboxHandle> {
    const replacement = this.replacement;
    if (replacement) {
      try {
        await replacement;
      } catch (error) {
        if (this.replacement === replacement) this.startReplacement();
        throw error;
      }
      if (this.replacement === replacement) this.replacement = undefined;
    }
    return this.worker;
  }

  private assertIdle(operation: string): void {
    if (this.closing) throw new ClosedError("QuickJsExecutor");
    if (this.active) throw new ExecutorBusyError(operation);
  }
}

function positive(name: string, value: number): number {
  if (!Number.isFinite(value) || value <= 0) {
    throw new ConfigError(`QuickJsExecutor: ${name} must be a positive number, got ${String(value)}`);
  }
  return value;
}
