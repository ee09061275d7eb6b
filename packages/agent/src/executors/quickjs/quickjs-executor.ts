import {
  AbortError,
  ClosedError,
  type CodeExecutor,
  ConfigError,
  type ExecutionError,
  type ExecutionResult,
  type RunOptions,
  TOOL_NAME_PATTERN,
  type Tool,
} from "@atrium/spec";
import type { QuickJSHandle } from "quickjs-emscripten";
import {
  QUICKJS_CLEANUP_MS,
  QUICKJS_MAX_CODE_CHARS,
  QUICKJS_MAX_JOBS,
  QUICKJS_MAX_OUTPUT_CHARS,
  QUICKJS_MAX_PRINTED_CHARS,
  QUICKJS_MAX_STACK_BYTES,
  QUICKJS_MAX_TOOL_CALLS,
  QUICKJS_MAX_TRANSFER_CHARS,
  QUICKJS_MEMORY_LIMIT_BYTES,
  QUICKJS_TIMEOUT_MS,
} from "../../limits.js";
import { ExecutorBusyError } from "../executor-errors.js";
import { type DescribedError, describedToExecutionError, executionError } from "./execution-errors.js";
import { fromJsonText, toJsonText } from "./json-crossing.js";
import { NotebookSyntaxError, toNotebookScript } from "./notebook-script.js";
import { QuickJsSandbox, type SandboxHost } from "./quickjs-sandbox.js";
import { type PendingToolCall, RunState } from "./run-state.js";
import { describeThrown, runToolCall, type ToolCallEvent } from "./tool-bridge.js";

export interface QuickJsExecutorOptions {
  /** Default wall-clock budget of one run (a run's `timeoutMs` overrides it). */
  timeoutMs?: number;
  /** Heap limit of the sandbox. */
  memoryLimitBytes?: number;
  /** Interpreter stack limit; see `QUICKJS_MAX_STACK_BYTES` before raising it. */
  maxStackBytes?: number;
  /** Printed characters kept per run (head and tail; the middle is cut with a marker). */
  maxOutputChars?: number;
  /** Printed characters after which a run ends with an "output-limit" error. */
  maxPrintedChars?: number;
  /** Tool calls per run; the next one ends the run with a "runtime" error. */
  maxToolCalls?: number;
  /** Promise jobs per run; past it the run ends with a "runtime" error. */
  maxJobs?: number;
  /** Longest code a run accepts. */
  maxCodeChars?: number;
  /** Largest JSON text of one value crossing the boundary (results, tool inputs and outputs). */
  maxTransferChars?: number;
  /** Observes every tool call the code makes (call, progress, result). */
  onToolCall?: (event: ToolCallEvent) => void;
  /** Tools to install right away (same as calling `setTools`). */
  tools?: readonly Tool[];
}

type ResolvedLimits = Required<Omit<QuickJsExecutorOptions, "onToolCall" | "tools">>;

/** How the code's promise ended, before stop reasons are applied. */
type Settlement = { type: "value"; json: string | undefined } | { type: "error"; error: ExecutionError };

/** Globals the executor defines itself; code, tools and variables may not take these names. */
const RESERVED_NAMES = new Set(["final_answer", "console", "globalThis"]);
const VARIABLE_NAME = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
/** Promise jobs run between checks of the run's state. */
const JOB_BATCH = 1024;
/** Batches of leftover jobs run (each interrupted at once) before a context counts as stuck. */
const LEFTOVER_JOB_BATCHES = 64;

/**
 * A `CodeExecutor` for JavaScript on QuickJS (quickjs-emscripten), one wasm instance per
 * executor. Notebook semantics (top-level declarations persist, top-level `await`, the last
 * expression is the output), tools as async functions bridged to the host, and limits on time,
 * memory, stack, output, tool calls and promise jobs. See the package README for the details.
 */
export class QuickJsExecutor implements CodeExecutor {
  readonly language = "javascript" as const;
  private sandbox!: QuickJsSandbox;
  private tools = new Map<string, Tool>();
  private active: RunState | undefined;
  private activeCode = "";
  private activeCompletion: Promise<unknown> | undefined;
  private runCount = 0;
  private closing: Promise<void> | undefined;
  private readonly limits: ResolvedLimits;
  private readonly onToolCall: ((event: ToolCallEvent) => void) | undefined;
  private readonly host: SandboxHost = {
    shouldInterrupt: () => this.shouldInterrupt(),
    print: (text) => this.print(text),
    finalAnswer: (json) => this.finalAnswer(json),
    callTool: (name, json) => this.callTool(name, json),
  };

  private constructor(options: QuickJsExecutorOptions) {
    this.limits = {
      timeoutMs: positive("timeoutMs", options.timeoutMs ?? QUICKJS_TIMEOUT_MS),
      memoryLimitBytes: positive("memoryLimitBytes", options.memoryLimitBytes ?? QUICKJS_MEMORY_LIMIT_BYTES),
      maxStackBytes: positive("maxStackBytes", options.maxStackBytes ?? QUICKJS_MAX_STACK_BYTES),
      maxOutputChars: positive("maxOutputChars", options.maxOutputChars ?? QUICKJS_MAX_OUTPUT_CHARS),
      maxPrintedChars: positive("maxPrintedChars", options.maxPrintedChars ?? QUICKJS_MAX_PRINTED_CHARS),
      maxToolCalls: positive("maxToolCalls", options.maxToolCalls ?? QUICKJS_MAX_TOOL_CALLS),
      maxJobs: positive("maxJobs", options.maxJobs ?? QUICKJS_MAX_JOBS),
      maxCodeChars: positive("maxCodeChars", options.maxCodeChars ?? QUICKJS_MAX_CODE_CHARS),
      maxTransferChars: positive("maxTransferChars", options.maxTransferChars ?? QUICKJS_MAX_TRANSFER_CHARS),
    };
    this.onToolCall = options.onToolCall;
  }

  /** Creates an executor on a new QuickJS wasm instance (the compiled module is cached). */
  static async create(options: QuickJsExecutorOptions = {}): Promise<QuickJsExecutor> {
    const executor = new QuickJsExecutor(options);
    executor.sandbox = await QuickJsSandbox.create(executor.limits, executor.host);
    if (options.tools) executor.setTools(options.tools);
    return executor;
  }

  async run(code: string, options: RunOptions = {}): Promise<ExecutionResult> {
    this.assertIdle("run()");
    if (typeof code !== "string") throw new ConfigError("run(code): code must be a string");
    if (options.signal?.aborted) throw new AbortError("The run was aborted before it started");
    const timeoutMs = positive("timeoutMs", options.timeoutMs ?? this.limits.timeoutMs);
    const index = ++this.runCount;
    const run = new RunState(
      index,
      `step-${index}.js`,
      timeoutMs,
      Date.now() + timeoutMs,
      this.limits.maxOutputChars,
    );
    this.active = run;
    this.activeCode = code;
    const completion = this.execute(code, run, options.signal);
    this.activeCompletion = completion.catch(() => undefined);
    try {
      return await completion;
    } finally {
      this.active = undefined;
      this.activeCompletion = undefined;
    }
  }

  setTools(tools: readonly Tool[]): void {
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
    for (const name of this.tools.keys()) {
      if (!next.has(name)) this.callHelperOrThrow("removeGlobal", `remove tool ${name}`, name);
    }
    this.tools = next;
    this.installTools();
  }

  setVariables(variables: Record<string, unknown>): void {
    this.assertIdle("setVariables()");
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
      this.callHelperOrThrow("setGlobal", `set variable "${name}"`, name, json);
    }
  }

  async reset(): Promise<void> {
    this.assertIdle("reset()");
    await this.renewContext();
  }

  async close(): Promise<void> {
    this.closing ??= (async () => {
      this.active?.requestStop({ type: "closed" });
      await this.activeCompletion;
      this.sandbox.dispose();
    })();
    await this.closing;
  }

  // ── one run ────────────────────────────────────────────────────────────────────────────────

  private async execute(
    code: string,
    run: RunState,
    signal: AbortSignal | undefined,
  ): Promise<ExecutionResult> {
    const started = performance.now();
    // Start from a fresh, shallow host stack: wasm frames use Node's native stack.
    await null;
    const prepared = this.prepare(code);
    if (typeof prepared !== "string")
      return this.result(run, { type: "error", error: prepared }, false, started);
    const script = prepared;

    const onAbort = () => run.requestStop({ type: "abort" });
    signal?.addEventListener("abort", onAbort, { once: true });
    const timer = setTimeout(() => run.requestStop({ type: "timeout" }), run.timeoutMs);
    let settlement: Settlement;
    let stateLost = false;
    try {
      settlement = await this.evaluate(script, run, code);
      stateLost = await this.cleanUp(run, settlement);
    } catch (crash) {
      // Only a failure of the wasm instance itself gets here (Node's stack overflowing inside
      // wasm frames, an abort in QuickJS): its memory can no longer be trusted.
      settlement = { type: "error", error: await this.recoverFromCrash(crash) };
      stateLost = true;
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
      run.controller.abort();
    }
    return this.result(run, settlement, stateLost, started);
  }

  /** The notebook script for `code`, or the error that stops it from running at all. */
  private prepare(code: string): string | ExecutionError {
    if (code.length > this.limits.maxCodeChars) {
      return executionError(
        "runtime",
        "RangeError",
        `The code is ${code.length} characters long; the limit is ${this.limits.maxCodeChars}. Split the work into smaller steps.`,
        code,
      );
    }
    try {
      const { script, declared } = toNotebookScript(code);
      for (const { name, line } of declared) {
        if (RESERVED_NAMES.has(name) || this.tools.has(name)) {
          const what = this.tools.has(name) ? "a tool" : "built in";
          return executionError(
            "syntax",
            "SyntaxError",
            `"${name}" is ${what} and cannot be declared again; choose another name`,
            code,
            line,
          );
        }
      }
      return script;
    } catch (error) {
      if (error instanceof NotebookSyntaxError) {
        return executionError("syntax", "SyntaxError", error.message, code, error.line);
      }
      throw error;
    }
  }

  private async evaluate(script: string, run: RunState, code: string): Promise<Settlement> {
    const { context } = this.sandbox;
    const evaluated = context.evalCode(script, run.fileName, { type: "global" });
    if (evaluated.error) return this.settleError(evaluated.error, run, code);
    const promise = evaluated.value;
    try {
      for (;;) {
        if (run.stop) return stopped;
        const jobError = this.drainJobs(run);
        if (jobError) return this.settleError(jobError, run, code);
        if (run.stop) return stopped;
        const state = context.getPromiseState(promise);
        if (state.type === "fulfilled") {
          if (state.notAPromise) return this.exportValue(promise, run, code);
          try {
            return this.exportValue(state.value, run, code);
          } finally {
            state.value.dispose();
          }
        }
        if (state.type === "rejected") return this.settleError(state.error, run, code);
        if (run.pending.size === 0) {
          return {
            type: "error",
            error: executionError(
              "runtime",
              "Error",
              "The code awaits a promise that can never settle (no tool call is still running)",
              code,
            ),
          };
        }
        await run.nextWake();
        this.applySettledCalls(run);
      }
    } finally {
      promise.dispose();
    }
  }

  /** Runs queued promise jobs in batches, counting them; returns the error handle of a failed job. */
  private drainJobs(run: RunState): QuickJSHandle | undefined {
    const { runtime } = this.sandbox;
    while (runtime.hasPendingJob()) {
      if (run.stop) return undefined;
      const executed = runtime.executePendingJobs(JOB_BATCH);
      if (executed.error) return executed.error;
      run.jobs += executed.value;
      if (run.jobs > this.limits.maxJobs) {
        run.requestStop({
          type: "limit",
          error: executionError(
            "runtime",
            "RangeError",
            `The code ran more than ${this.limits.maxJobs} promise jobs in one step (a promise flood) and was stopped`,
            "",
          ),
        });
      }
    }
    return undefined;
  }

  private exportValue(value: QuickJSHandle, run: RunState, code: string): Settlement {
    const exported = this.sandbox.callHelper("exportValue", value);
    if (exported.error) return this.settleError(exported.error, run, code);
    const json = this.sandbox.takeString(exported.value);
    if (json !== undefined && json.length > this.limits.maxTransferChars) {
      return {
        type: "error",
        error: executionError(
          "output-limit",
          "RangeError",
          `The value of the last expression is ${json.length} characters of JSON; the limit is ${this.limits.maxTransferChars}. Return less, or print a summary.`,
          code,
        ),
      };
    }
    return { type: "value", json };
  }

  /** Turns a thrown value into an error settlement; disposes the handle. */
  private settleError(errorHandle: QuickJSHandle, run: RunState, code: string): Settlement {
    try {
      if (run.stop) return stopped;
      run.deadline = Date.now() + QUICKJS_CLEANUP_MS;
      const described = this.describe(errorHandle);
      return {
        type: "error",
        error: describedToExecutionError(described, code, run.fileName, this.limits.maxStackBytes),
      };
    } finally {
      errorHandle.dispose();
    }
  }

  private describe(errorHandle: QuickJSHandle): DescribedError {
    const fallback = (message: string): DescribedError => ({
      isError: false,
      isToolError: false,
      name: "Error",
      message,
      stack: "",
    });
    const described = this.sandbox.callHelper("describeError", errorHandle);
    if (described.error) {
      described.error.dispose();
      // Reading the error failed too; out of memory is the usual reason.
      return { ...fallback("out of memory"), name: "InternalError" };
    }
    const json = this.sandbox.takeString(described.value);
    try {
      return json ? (JSON.parse(json) as DescribedError) : fallback("the thrown value could not be read");
    } catch {
      return fallback("the thrown value could not be read");
    }
  }

  /** Hands settled tool calls back to the code (resolve or reject their promises). */
  private applySettledCalls(run: RunState): void {
    const { context } = this.sandbox;
    for (const call of run.settled.splice(0)) {
      run.pending.delete(call);
      const outcome = call.outcome;
      try {
        if (!outcome || run.stop) continue;
        if (outcome.ok) {
          const imported = this.sandbox.callHelper("importValue", outcome.json);
          if (imported.error) {
            call.deferred.reject(imported.error);
            imported.error.dispose();
          } else {
            call.deferred.resolve(imported.value);
            imported.value.dispose();
          }
        } else {
          const error = context.newError({ name: outcome.name, message: outcome.message });
          try {
            this.sandbox.callHelper("markToolError", error).dispose();
            call.deferred.reject(error);
          } finally {
            error.dispose();
          }
        }
      } finally {
        call.deferred.dispose();
      }
    }
  }

  /**
   * Ends the run inside the sandbox: frees the promises of unfinished tool calls and cuts
   * leftover jobs short. Returns true when the context had to be replaced (state lost).
   */
  private async cleanUp(run: RunState, settlement: Settlement): Promise<boolean> {
    for (const call of run.pending) call.deferred.dispose();
    run.pending.clear();
    run.settled.length = 0;
    const { runtime } = this.sandbox;
    if (runtime.hasPendingJob()) {
      run.stop ??= { type: "ended" };
      for (let i = 0; i < LEFTOVER_JOB_BATCHES && runtime.hasPendingJob(); i++) {
        runtime.executePendingJobs(JOB_BATCH).error?.dispose();
      }
    }
    const outOfMemory = settlement.type === "error" && settlement.error.kind === "memory";
    if (runtime.hasPendingJob() || (outOfMemory && !this.isResponsive())) {
      await this.renewContext();
      return true;
    }
    return false;
  }

  /** After an out-of-memory error: can the context still run a little code? */
  private isResponsive(): boolean {
    const probe = this.sandbox.context.evalCode("[1, 2, 3].map((n) => n * 2).join()", "atrium:probe", {
      type: "global",
    });
    if (probe.error) {
      probe.error.dispose();
      return false;
    }
    probe.value.dispose();
    return true;
  }

  private result(
    run: RunState,
    settlement: Settlement,
    stateLost: boolean,
    started: number,
  ): ExecutionResult {
    const base = {
      logs: run.logs.toString(),
      images: [...run.images],
      durationMs: performance.now() - started,
    };
    const stop = run.stop;
    switch (stop?.type) {
      case "final":
        return { ...base, output: fromJsonText(stop.json), isFinalAnswer: true };
      case "timeout":
        return {
          ...base,
          output: undefined,
          isFinalAnswer: false,
          error: withStateLost(
            executionError(
              "timeout",
              "TimeoutError",
              `The code did not finish within ${run.timeoutMs} ms and was stopped`,
              "",
            ),
            stateLost,
          ),
        };
      case "abort":
        throw new AbortError("The run was aborted");
      case "closed":
        throw new ClosedError("QuickJsExecutor");
      case "fatal":
        throw stop.error;
      case "limit":
        return {
          ...base,
          output: undefined,
          isFinalAnswer: false,
          error: withStateLost(stop.error, stateLost),
        };
      default:
        if (settlement.type === "value") {
          return { ...base, output: fromJsonText(settlement.json), isFinalAnswer: false };
        }
        return {
          ...base,
          output: undefined,
          isFinalAnswer: false,
          error: withStateLost(settlement.error, stateLost),
        };
    }
  }

  // ── sandbox lifecycle ──────────────────────────────────────────────────────────────────────

  /** A new runtime and context (all state dropped), tools installed again. */
  private async renewContext(): Promise<void> {
    const old = this.sandbox;
    try {
      old.dispose();
      this.sandbox = QuickJsSandbox.onModule(old.module, this.limits, this.host);
    } catch {
      // Freeing failed inside QuickJS, so the wasm instance is suspect: start on a new one.
      this.sandbox = await QuickJsSandbox.create(this.limits, this.host);
    }
    this.installTools();
  }

  private async recoverFromCrash(crash: unknown): Promise<ExecutionError> {
    // The old instance is dropped without freeing anything: after a crash its allocator state
    // is unknown, and freeing could abort. The garbage collector reclaims its memory.
    this.sandbox = await QuickJsSandbox.create(this.limits, this.host);
    this.installTools();
    const stackOverflow = crash instanceof RangeError && /call stack/i.test(crash.message);
    const reason = stackOverflow
      ? "Maximum call stack size exceeded: the code nested too deeply (deep recursion, or deeply nested data in JSON or a literal)"
      : `The sandbox crashed (${describeThrown(crash)})`;
    return {
      kind: stackOverflow ? "runtime" : "memory",
      name: stackOverflow ? "RangeError" : "InternalError",
      message: `${reason}; it was restarted and every variable defined so far is lost`,
      stateLost: true,
    };
  }

  private installTools(): void {
    for (const name of this.tools.keys()) this.callHelperOrThrow("defineTool", `install tool ${name}`, name);
  }

  private callHelperOrThrow(
    helper: "setGlobal" | "defineTool" | "removeGlobal",
    what: string,
    ...args: (string | undefined)[]
  ): void {
    const result = this.sandbox.callHelper(helper, ...args);
    if (result.error) {
      const described = this.describe(result.error);
      result.error.dispose();
      throw new ConfigError(`Could not ${what} in the sandbox: ${described.name}: ${described.message}`);
    }
    result.value.dispose();
  }

  private assertIdle(operation: string): void {
    if (this.closing) throw new ClosedError("QuickJsExecutor");
    if (this.active) throw new ExecutorBusyError(operation);
  }

  // ── host functions called by the sandbox ───────────────────────────────────────────────────

  private shouldInterrupt(): boolean {
    const run = this.active;
    if (!run) return false;
    if (run.stop) return true;
    if (Date.now() > run.deadline) {
      run.requestStop({ type: "timeout" });
      return true;
    }
    return false;
  }

  private print(text: string): void {
    const run = this.active;
    if (!run || run.stop) return;
    run.logs.append(text);
    if (run.logs.printed > this.limits.maxPrintedChars) {
      run.requestStop({
        type: "limit",
        error: executionError(
          "output-limit",
          "OutputLimitError",
          `The code printed more than ${this.limits.maxPrintedChars} characters (an output flood) and was stopped; print less, or a summary`,
          "",
        ),
      });
    }
  }

  private finalAnswer(json: string | undefined): void {
    const run = this.active;
    if (!run) throw new Error("final_answer can only be called while a step runs");
    if (json !== undefined && json.length > this.limits.maxTransferChars) {
      throw new RangeError(
        `the final answer is ${json.length} characters of JSON; the limit is ${this.limits.maxTransferChars}`,
      );
    }
    run.requestStop({ type: "final", json });
  }

  private callTool(name: string, json: string): QuickJSHandle {
    const run = this.active;
    const tool = this.tools.get(name);
    if (!run || run.stop) throw new Error(`tool ${name} was called after the step ended`);
    if (!tool) throw new ReferenceError(`${name} is not a tool anymore`);
    if (++run.toolCalls > this.limits.maxToolCalls) {
      run.requestStop({
        type: "limit",
        error: executionError(
          "runtime",
          "RangeError",
          `The code made more than ${this.limits.maxToolCalls} tool calls in one step and was stopped; call tools fewer times per step`,
          this.activeCode,
        ),
      });
      throw new RangeError("too many tool calls");
    }
    if (json.length > this.limits.maxTransferChars) {
      throw new RangeError(
        `the input of tool ${name} is ${json.length} characters of JSON; the limit is ${this.limits.maxTransferChars}`,
      );
    }
    const input = fromJsonText(json);
    const deferred = this.sandbox.context.newPromise();
    const call: PendingToolCall = { id: `call_${run.index}_${run.toolCalls}`, name, deferred };
    run.pending.add(call);
    // The host side starts after QuickJS has returned, so a tool never runs inside the interpreter.
    queueMicrotask(() => {
      runToolCall(tool, input, call, run, {
        onToolCall: this.onToolCall,
        maxTransferChars: this.limits.maxTransferChars,
      }).catch((error: unknown) => run.requestStop({ type: "fatal", error }));
    });
    return deferred.handle;
  }
}

const stopped: Settlement = { type: "error", error: { kind: "runtime", name: "Error", message: "stopped" } };

function withStateLost(error: ExecutionError, stateLost: boolean): ExecutionError {
  return stateLost ? { ...error, stateLost: true } : error;
}

function positive(name: string, value: number): number {
  if (!Number.isFinite(value) || value <= 0) {
    throw new ConfigError(`QuickJsExecutor: ${name} must be a positive number, got ${String(value)}`);
  }
  return value;
}

export type { ToolCallEvent };
