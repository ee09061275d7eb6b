import { describeThrown } from "@atrium/kit";
import type { ExecutionError } from "@atrium/spec";
import type { QuickJSHandle, QuickJSWASMModule } from "quickjs-emscripten";
import type { QuickJsLimits } from "../../limits.js";
import { type DescribedError, describedToExecutionError, executionError } from "./execution-errors.js";
import { NotebookSyntaxError, toNotebookScript } from "./notebook-script.js";
import { QuickJsSandbox, type SandboxHost } from "./quickjs-sandbox.js";
import { RESERVED_NAMES } from "./reserved-names.js";
import { type PendingToolCall, RunState } from "./run-state.js";
import { type SandboxMemory, type SessionRunResult, STOP_FLAG, type ToolOutcome } from "./worker-protocol.js";

/**
 * A wasm instance whose linear memory grew past this is not handed to the next session (wasm
 * memory never shrinks); a fresh one starts at 16 MiB.
 */
const MAX_REUSED_WASM_BYTES = 96 * 1024 * 1024;

/** The session's line to the host, provided by the worker. */
export interface HostLink {
  /** Asks the host to run a tool; the answer comes back through `deliverToolResult`. */
  requestTool(runId: number, callId: string, name: string, json: string): void;
  /**
   * Blocks until the host sends something (delivering a tool result it brings) or `until`
   * (epoch ms) passes. A stop request also ends the wait, through the stop flag.
   */
  waitForHost(until: number): void;
}

/** How the code's promise ended, before stop reasons are applied. */
type Settlement = { type: "value"; json: string | undefined } | { type: "error"; error: ExecutionError };

/** Promise jobs run between checks of the run's state. */
const JOB_BATCH = 1024;
/** Batches of leftover jobs run (each interrupted at once) before a context counts as stuck. */
const LEFTOVER_JOB_BATCHES = 64;

/**
 * The QuickJS side of `QuickJsExecutor`, living in the sandbox worker: runs one step at a time
 * with notebook semantics, enforces the limits, and asks the host for tool calls. Host-side
 * concerns (tool execution, images, abort/close exceptions) stay on the main thread.
 */
export class SandboxSession {
  private sandbox!: QuickJsSandbox;
  private toolNames = new Set<string>();
  private active: RunState | undefined;
  private activeCode = "";
  /** Set while the host reads leftovers out of a stopped step: the deadline for that. */
  private drainingUntil: number | undefined;
  private readonly host: SandboxHost = {
    shouldInterrupt: () => this.shouldInterrupt(),
    print: (text) => this.print(text),
    finalAnswer: (json) => this.finalAnswer(json),
    callTool: (name, json) => this.callTool(name, json),
  };

  private constructor(
    private limits: QuickJsLimits,
    private readonly link: HostLink,
    private readonly stopFlag: Int32Array,
  ) {}

  /** A session on `module` (a wasm instance a previous session released), or on a new one. */
  static async create(
    limits: QuickJsLimits,
    link: HostLink,
    stopFlag: Int32Array,
    module?: QuickJSWASMModule,
  ): Promise<SandboxSession> {
    const session = new SandboxSession(limits, link, stopFlag);
    session.sandbox = module
      ? QuickJsSandbox.onModule(module, limits, session.host)
      : await QuickJsSandbox.create(limits, session.host);
    return session;
  }

  async run(runId: number, code: string, timeoutMs: number): Promise<SessionRunResult> {
    if (this.active) throw new Error("a run is already going on in this sandbox");
    const run = new RunState(
      runId,
      `step-${runId}.js`,
      timeoutMs,
      Date.now() + timeoutMs,
      this.limits.maxOutputChars,
    );
    this.active = run;
    this.activeCode = code;
    try {
      return await this.execute(code, run);
    } finally {
      this.active = undefined;
    }
  }

  /** Applies an executor's limits (a session may be built ahead of time with others). */
  configure(limits: QuickJsLimits): void {
    this.limits = limits;
    this.sandbox.runtime.setMemoryLimit(limits.memoryLimitBytes);
    this.sandbox.runtime.setMaxStackSize(limits.maxStackBytes);
  }

  setTools(names: readonly string[]): void {
    for (const name of this.toolNames) {
      if (!names.includes(name)) this.callHelperOrThrow("removeGlobal", `remove tool ${name}`, name);
    }
    this.toolNames = new Set(names);
    this.installTools();
  }

  setVariables(entries: readonly [string, string | undefined][]): void {
    for (const [name, json] of entries)
      this.callHelperOrThrow("setGlobal", `set variable "${name}"`, name, json);
  }

  async reset(): Promise<void> {
    await this.renewContext();
  }

  /**
   * Frees the runtime and context and returns the wasm instance for the next session, unless
   * it cannot be trusted (freeing failed) or its memory grew past `MAX_REUSED_WASM_BYTES`.
   */
  release(): QuickJSWASMModule | undefined {
    const module = this.sandbox.module;
    try {
      this.sandbox.dispose();
    } catch {
      return undefined;
    }
    return module.getWasmMemory().buffer.byteLength <= MAX_REUSED_WASM_BYTES ? module : undefined;
  }

  memory(): SandboxMemory {
    const { runtime, context, module } = this.sandbox;
    const usage = runtime.computeMemoryUsage();
    try {
      const { memory_used_size } = context.dump(usage) as { memory_used_size: number };
      return { usedBytes: memory_used_size, wasmBytes: module.getWasmMemory().buffer.byteLength };
    } finally {
      if (usage.alive) usage.dispose();
    }
  }

  deliverToolResult(runId: number, callId: string, outcome: ToolOutcome): void {
    const run = this.active;
    if (!run || run.id !== runId) return;
    for (const call of run.pending) {
      if (call.id === callId) run.settle(call, outcome);
    }
  }

  dispose(): void {
    this.sandbox.dispose();
  }

  // ── one run ────────────────────────────────────────────────────────────────────────────────

  private async execute(code: string, run: RunState): Promise<SessionRunResult> {
    const started = performance.now();
    // Start from a fresh, shallow host stack: wasm frames use Node's native stack.
    await null;
    const prepared = this.prepare(code);
    if (typeof prepared !== "string")
      return this.result(run, { type: "error", error: prepared }, false, started);
    const script = prepared;

    // No timer: the interrupt handler checks the deadline while code runs, and the wait for
    // tool results ends at it.
    let settlement: Settlement;
    let stateLost = false;
    try {
      settlement = this.evaluate(script, run, code);
      this.endStep();
      stateLost = await this.cleanUp(run, settlement);
    } catch (crash) {
      // Only a failure of the wasm instance itself gets here (Node's stack overflowing inside
      // wasm frames, an abort in QuickJS): its memory can no longer be trusted.
      settlement = { type: "error", error: await this.recoverFromCrash(crash) };
      stateLost = true;
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
        if (RESERVED_NAMES.has(name) || this.toolNames.has(name)) {
          const what = this.toolNames.has(name) ? "a tool" : "built in";
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

  /**
   * Takes the output the sandbox still buffers, even after a stop (the code's own limits no
   * longer apply; a short budget does), and readies the prelude for the next step.
   */
  private endStep(): void {
    this.drainingUntil = Date.now() + this.limits.cleanupMs;
    try {
      const ended = this.sandbox.callHelper("endStep");
      (ended.error ?? ended.value).dispose();
    } finally {
      this.drainingUntil = undefined;
    }
  }

  private evaluate(script: string, run: RunState, code: string): Settlement {
    const { context } = this.sandbox;
    const evaluated = context.evalCode(script, run.fileName, { type: "global" });
    if (evaluated.error) return asSyntaxError(this.settleError(evaluated.error, run, code));
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
        if (run.settled.length === 0) this.link.waitForHost(run.deadline);
        // Woken by the stop flag, or the deadline passed while tools were running.
        this.shouldInterrupt();
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
    if (json !== undefined && !this.cross(run, json.length)) return stopped;
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
      run.deadline = Date.now() + this.limits.cleanupMs;
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
    const described = this.sandbox.callHelper(
      "describeError",
      errorHandle,
      String(this.limits.maxErrorChars),
    );
    if (described.error) {
      described.error.dispose();
      // Reading the error failed too; out of memory is the usual reason.
      return { ...fallback("out of memory"), name: "InternalError" };
    }
    const json = this.sandbox.takeString(described.value);
    try {
      const parsed: unknown = json ? JSON.parse(json) : undefined;
      return isDescribedError(parsed) ? parsed : fallback("the thrown value could not be read");
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
        if (outcome.ok && outcome.json !== undefined && !this.cross(run, outcome.json.length)) continue;
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
  ): SessionRunResult {
    const base = {
      logs: run.logs.toString(),
      durationMs: performance.now() - started,
      stoppedByHost: false,
      isFinalAnswer: false,
      outputJson: undefined,
    };
    const stop = run.stop;
    switch (stop?.type) {
      case "final":
        return { ...base, outputJson: stop.json, isFinalAnswer: true };
      case "timeout": {
        const message = `The code did not finish within ${run.timeoutMs} ms and was stopped`;
        return {
          ...base,
          error: withStateLost(executionError("timeout", "TimeoutError", message, ""), stateLost),
        };
      }
      case "host":
        return { ...base, stoppedByHost: true };
      case "limit":
        return { ...base, error: withStateLost(stop.error, stateLost) };
      default:
        if (settlement.type === "value") return { ...base, outputJson: settlement.json };
        return { ...base, error: withStateLost(settlement.error, stateLost) };
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
    for (const name of this.toolNames) this.callHelperOrThrow("defineTool", `install tool ${name}`, name);
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
      throw new Error(`Could not ${what} in the sandbox: ${described.name}: ${described.message}`);
    }
    result.value.dispose();
  }

  // ── host functions called by the sandbox ───────────────────────────────────────────────────

  private shouldInterrupt(): boolean {
    if (this.drainingUntil !== undefined) return Date.now() > this.drainingUntil;
    const run = this.active;
    if (!run) return false;
    if (run.stop) return true;
    if (Atomics.load(this.stopFlag, STOP_FLAG) !== 0) {
      run.requestStop({ type: "host" });
      return true;
    }
    if (Date.now() > run.deadline) {
      run.requestStop({ type: "timeout" });
      return true;
    }
    return false;
  }

  /**
   * Counts `chars` crossing the boundary in `run`; false (and the run stopping) once the step's
   * budget is spent.
   */
  private cross(run: RunState, chars: number): boolean {
    run.crossedChars += chars;
    if (run.crossedChars <= this.limits.maxStepTransferChars) return true;
    run.requestStop({
      type: "limit",
      error: executionError(
        "output-limit",
        "RangeError",
        `The code moved more than ${this.limits.maxStepTransferChars} characters across the sandbox boundary in one step (tool inputs and results, printed output, answers) and was stopped; move less data per step`,
        "",
      ),
    });
    return false;
  }

  /** Printed text, as JSON text (a C string would end at a NUL and lose lone surrogates). */
  private print(json: string): void {
    const run = this.active;
    if (!run || (run.stop && this.drainingUntil === undefined)) return;
    const text: unknown = JSON.parse(json);
    if (typeof text !== "string") throw new TypeError("the sandbox printed something that is not text");
    if (!this.cross(run, json.length)) return;
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
    if (json !== undefined && !this.cross(run, json.length)) return;
    if (json !== undefined && json.length > this.limits.maxTransferChars) {
      throw new RangeError(
        `the final answer is ${json.length} characters of JSON; the limit is ${this.limits.maxTransferChars}`,
      );
    }
    run.requestStop({ type: "final", json });
  }

  private callTool(name: string, json: string): QuickJSHandle {
    const run = this.active;
    if (!run || run.stop) throw new Error(`tool ${name} was called after the step ended`);
    if (!this.toolNames.has(name)) throw new ReferenceError(`${name} is not a tool anymore`);
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
    if (!this.cross(run, json.length)) throw new RangeError("too much data crossed in this step");
    const deferred = this.sandbox.context.newPromise();
    const call: PendingToolCall = { id: `call_${run.id}_${run.toolCalls}`, name, deferred };
    run.pending.add(call);
    this.link.requestTool(run.id, call.id, name, json);
    return deferred.handle;
  }
}

const stopped: Settlement = { type: "error", error: { kind: "runtime", name: "Error", message: "stopped" } };

/** Whether the prelude's description has the shape and types it must have (it may be forged). */
function isDescribedError(value: unknown): value is DescribedError {
  if (typeof value !== "object" || value === null) return false;
  const v = value as Record<string, unknown>;
  return (
    typeof v.isError === "boolean" &&
    typeof v.isToolError === "boolean" &&
    typeof v.name === "string" &&
    typeof v.message === "string" &&
    typeof v.stack === "string"
  );
}

function withStateLost(error: ExecutionError, stateLost: boolean): ExecutionError {
  return stateLost ? { ...error, stateLost: true } : error;
}

/** An error from compiling the script (acorn accepted what QuickJS does not) is a syntax error. */
function asSyntaxError(settlement: Settlement): Settlement {
  if (settlement.type !== "error" || settlement.error.name !== "SyntaxError") return settlement;
  return { type: "error", error: { ...settlement.error, kind: "syntax" } };
}
