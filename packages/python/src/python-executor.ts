import { runSandboxToolCall, type ToolCallEvent } from "@atrium/kit";
import {
  AbortError,
  AtriumError,
  ClosedError,
  type CodeExecutor,
  ConfigError,
  type ExecutionError,
  type ExecutionResult,
  type ExecutorCapabilities,
  type ImagePart,
  type RunOptions,
  type Tool,
} from "@atrium/spec";
import { authorizedImports } from "./authorized-imports.js";
import { boundLogs } from "./bounded-logs.js";
import { DEFAULT_PYTHON_LIMITS, type PythonLimits, resolvePythonLimits } from "./limits.js";
import { JAVASCRIPT_HINT, looksLikeJavaScript } from "./looks-like-javascript.js";
import { PythonIsolation, pythonCapabilities } from "./python-isolation.js";
import { badPythonName, toolParameters } from "./python-names.js";
import type { PythonSandboxClient } from "./python-sandbox-client.js";
import { PythonWorkerExit } from "./python-worker-client.js";
import { explainSandboxFailure } from "./sandbox/explain-sandbox-failure.js";
import { acquirePythonWorker, prewarmPythonWorkers } from "./worker-pool.js";
import type { HarnessRunResult, WorkerToHost } from "./worker-protocol.js";

/** Every limit of `PythonLimits` is an option (its default in `DEFAULT_PYTHON_LIMITS`). */
export interface PythonExecutorOptions extends Partial<PythonLimits> {
  /**
   * Modules the code may import beyond `DEFAULT_AUTHORIZED_IMPORTS` (like smolagents'
   * `additional_authorized_imports`): "csv", "xml.*", or "*" for every module not blocked
   * outright. Only the standard library that ships with Pyodide is there to import.
   */
  additionalAuthorizedImports?: readonly string[];
  /** Observes every tool call the code makes (call, progress, result). */
  onToolCall?: (event: ToolCallEvent) => void;
  /** Tools to install right away (same as `setTools`). */
  tools?: readonly Tool[];
  /**
   * What separates the code from the host (see `PythonIsolation`): "process" (the default) runs
   * the interpreter in an OS-sandboxed process and refuses to start where that sandbox cannot;
   * "wasm" runs it in a worker thread of this process, behind language-level guards only.
   */
  isolation?: PythonIsolation;
}

/** Why the host stopped a run; decides what `run` throws or reports. */
type HostStop = "timeout" | "abort" | "closed" | { fatal: unknown };

interface ActiveRun {
  id: number;
  controller: AbortController;
  images: ImagePart[];
  stop?: HostStop;
  /** Gives up on the worker (it does not answer): resolves the race in `execute`. */
  giveUp: () => void;
  timers: ReturnType<typeof setTimeout>[];
  /** Tool calls the sandbox made in this run, and how many are still being answered. */
  toolCalls: number;
  toolsInFlight: number;
  /** The sandbox broke the protocol (a forged call, an impossible result): why. */
  broken?: string;
}

/** The run is already going on; one at a time per executor. */
export class PythonExecutorBusyError extends AtriumError {
  constructor(operation: string) {
    super("EXECUTION", `PythonExecutor: ${operation} was called while a run is going on; await it first`, {
      isFatal: true,
    });
  }
}

let lastRunId = 0;

/**
 * A `CodeExecutor` for Python: CPython in WebAssembly (Pyodide, offline from its npm package) in
 * a worker thread. Notebook semantics (variables, functions and imports persist; the last
 * expression is the output), `print` captured and bounded, tools as synchronous Python
 * functions bridged to the host's async tools, an import allow-list, and limits on time,
 * memory, output and tool calls. A run that overstays its time is interrupted; one that will
 * not stop has its worker replaced (`stateLost`). See the README.
 */
export class PythonExecutor implements CodeExecutor {
  readonly language = "python" as const;
  readonly capabilities: ExecutorCapabilities;
  readonly isolation: PythonIsolation;
  private worker!: PythonSandboxClient;
  private tools = new Map<string, Tool>();
  private active: ActiveRun | undefined;
  private activeCompletion: Promise<unknown> | undefined;
  private closing: Promise<void> | undefined;
  private replacement: Promise<void> | undefined;
  private readonly limits: Readonly<PythonLimits>;
  private readonly imports: string[];
  private readonly onToolCall: ((event: ToolCallEvent) => void) | undefined;

  private constructor(options: PythonExecutorOptions) {
    const overrides: Partial<Record<keyof PythonLimits, number>> = {};
    for (const field of Object.keys(DEFAULT_PYTHON_LIMITS) as (keyof PythonLimits)[]) {
      overrides[field] = options[field];
    }
    this.limits = resolvePythonLimits(overrides);
    this.imports = authorizedImports(options.additionalAuthorizedImports);
    this.onToolCall = options.onToolCall;
    const isolation = options.isolation ?? PythonIsolation.default;
    if (!PythonIsolation.all.includes(isolation)) {
      throw new ConfigError(
        `PythonExecutor: isolation must be one of ${PythonIsolation.all.map((name) => `"${name}"`).join(", ")}, got ${JSON.stringify(isolation)}`,
      );
    }
    this.isolation = isolation;
    this.capabilities = pythonCapabilities(isolation);
  }

  /** Creates an executor on a warm worker when there is one (milliseconds), else boots one. */
  static async create(options: PythonExecutorOptions = {}): Promise<PythonExecutor> {
    const executor = new PythonExecutor(options);
    await executor.attachWorker();
    if (options.tools) await executor.setTools(options.tools);
    return executor;
  }

  /**
   * Boots `count` workers ahead of need (at most 4 are kept warm): the first `create()` otherwise
   * waits for Pyodide to load (about 1.6 s on an idle machine).
   */
  static async prewarm(count = 1, isolation: PythonIsolation = PythonIsolation.default): Promise<void> {
    await prewarmPythonWorkers(count, isolation);
  }

  async run(code: string, options: RunOptions = {}): Promise<ExecutionResult> {
    this.assertIdle("run()");
    if (typeof code !== "string") throw new ConfigError("run(code): code must be a string");
    if (options.signal?.aborted) throw new AbortError("The run was aborted before it started");
    const timeoutMs = options.timeoutMs ?? this.limits.timeoutMs;
    if (!Number.isFinite(timeoutMs) || timeoutMs <= 0) {
      throw new ConfigError(`PythonExecutor: timeoutMs must be a positive number, got ${String(timeoutMs)}`);
    }
    const run: ActiveRun = {
      id: ++lastRunId,
      controller: new AbortController(),
      images: [],
      giveUp: () => {},
      timers: [],
      toolCalls: 0,
      toolsInFlight: 0,
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
      const bad = badPythonName(tool.name);
      if (bad) throw new ConfigError(`setTools: "${tool.name}" cannot be a tool name in Python: ${bad}`);
      if (next.has(tool.name))
        throw new ConfigError(`setTools: two tools are named "${tool.name}"; names must be unique`);
      next.set(tool.name, tool);
    }
    this.tools = next;
    await (await this.ready()).request({ type: "set-tools", tools: this.toolList() });
  }

  async setVariables(variables: Record<string, unknown>): Promise<void> {
    this.assertIdle("setVariables()");
    const entries: [string, string | null][] = [];
    for (const [name, value] of Object.entries(variables)) {
      const bad = badPythonName(name) ?? (this.tools.has(name) ? "it is a tool's name" : undefined);
      if (bad) throw new ConfigError(`setVariables: "${name}" cannot be a variable name: ${bad}`);
      let json: string | undefined;
      try {
        json = JSON.stringify(value);
      } catch (error) {
        throw new ConfigError(
          `setVariables: "${name}" is not JSON-compatible data: ${(error as Error).message}`,
        );
      }
      if (json !== undefined && json.length > this.limits.maxTransferChars) {
        throw new ConfigError(
          `setVariables: "${name}" is ${json.length} characters of JSON; the limit is ${this.limits.maxTransferChars} (maxTransferChars)`,
        );
      }
      entries.push([name, json ?? null]);
    }
    await (await this.ready()).request({ type: "set-variables", entries });
  }

  async reset(): Promise<void> {
    this.assertIdle("reset()");
    await (await this.ready()).request({ type: "reset" });
  }

  async close(): Promise<void> {
    this.closing ??= (async () => {
      if (this.active) this.stopRun(this.active, "closed");
      await this.activeCompletion;
      await this.replacement?.catch(() => undefined);
      await this.worker?.terminate();
    })();
    await this.closing;
  }

  /** `await using executor = await PythonExecutor.create()` closes it at the end of the block. */
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
    if (code.length > this.limits.maxCodeChars) {
      return failed(started, {
        kind: "runtime",
        name: "RangeError",
        message: `The code is ${code.length} characters long; the limit is ${this.limits.maxCodeChars}. Split the work into smaller steps.`,
      });
    }
    const onAbort = () => this.stopRun(run, "abort");
    signal?.addEventListener("abort", onAbort, { once: true });
    const hung = new Promise<"hung">((resolve) => {
      run.giveUp = () => resolve("hung");
    });
    let outcome: HarnessRunResult | "hung" | PythonWorkerExit;
    try {
      const worker = this.replacement ? await this.ready() : this.worker;
      worker.clearInterrupt();
      run.timers.push(setTimeout(() => this.stopRun(run, "timeout"), timeoutMs));
      // Code that catches KeyboardInterrupt (or sits in one long native call) is given as long
      // again as its budget, at least watchdogGraceMs, before its worker is given up on.
      run.timers.push(setTimeout(run.giveUp, timeoutMs + Math.max(timeoutMs, this.limits.watchdogGraceMs)));
      outcome = await Promise.race([
        worker.request({ type: "run", runId: run.id, code, deadline: Date.now() + timeoutMs }),
        hung,
      ]);
    } catch (error) {
      if (!(error instanceof PythonWorkerExit)) throw error;
      outcome = error;
    } finally {
      for (const timer of run.timers) clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
      run.controller.abort(new AbortError("the step that called this tool ended"));
    }
    let output: unknown;
    if (typeof outcome === "object" && !(outcome instanceof PythonWorkerExit) && !run.broken) {
      const read = this.readOutput(outcome);
      if ("broken" in read) this.breakRun(run, read.broken);
      else output = read.value;
    }
    if (run.broken) outcome = new PythonWorkerExit(`it broke the protocol: ${run.broken}`);
    const workerLost = outcome === "hung" || outcome instanceof PythonWorkerExit;
    if (workerLost && run.stop === "closed") await this.worker.terminate();
    else if (workerLost) this.startReplacement();
    if (run.stop === "abort") {
      throw new AbortError(
        workerLost
          ? "The run was aborted; its sandbox did not stop in time and was restarted, so every variable is lost"
          : "The run was aborted",
      );
    }
    if (run.stop === "closed") throw new ClosedError("PythonExecutor");
    if (typeof run.stop === "object") throw run.stop.fatal;
    if (outcome === "hung") {
      return failed(started, {
        kind: "timeout",
        name: "TimeoutError",
        message: `The code did not stop within ${timeoutMs} ms (it may catch KeyboardInterrupt); its sandbox was restarted, so every variable is lost`,
        stateLost: true,
      });
    }
    if (outcome instanceof PythonWorkerExit) {
      return failed(started, {
        kind: "crashed",
        name: "SandboxCrashError",
        message: `The sandbox crashed (${outcome.message}) and was restarted; every variable is lost`,
        stateLost: true,
      });
    }
    return this.toResult(outcome, output, run, code, timeoutMs, started);
  }

  /**
   * The run's value, read from the sandbox's JSON. The harness sends at most `maxTransferChars`
   * of valid JSON; anything else did not come from it, so the sandbox is given up on.
   */
  private readOutput(outcome: HarnessRunResult): { value: unknown } | { broken: string } {
    const json = outcome.outputJson;
    if (json === null) return { value: undefined };
    if (json.length > this.limits.maxTransferChars) {
      return {
        broken: `it sent a result over ${this.limits.maxTransferChars} characters (maxTransferChars)`,
      };
    }
    try {
      return { value: JSON.parse(json) };
    } catch {
      return { broken: "it sent a result that is not JSON" };
    }
  }

  private toResult(
    outcome: HarnessRunResult,
    output: unknown,
    run: ActiveRun,
    code: string,
    timeoutMs: number,
    started: number,
  ): ExecutionResult {
    let error = outcome.error;
    if (error && error.message.length > this.limits.maxErrorChars) {
      // The harness cuts its messages already; the host does not take a longer one on trust.
      error = { ...error, message: `${error.message.slice(0, this.limits.maxErrorChars)}… (cut)` };
    }

    if (outcome.interrupted || run.stop === "timeout") {
      error = {
        kind: "timeout",
        name: "TimeoutError",
        message: `The code did not finish within ${timeoutMs} ms and was interrupted; variables set before the interruption are kept`,
      };
    } else if (error?.kind === "syntax" && looksLikeJavaScript(code)) {
      error = { ...error, message: `${error.message}. ${JAVASCRIPT_HINT}` };
    }
    const interrupted = error?.kind === "timeout";

    return {
      output: interrupted ? undefined : output,

      logs: boundLogs(outcome.logs, this.limits.maxOutputChars),
      isFinalAnswer: !interrupted && outcome.isFinalAnswer,
      ...(error ? { error } : {}),
      images: run.images,
      durationMs: performance.now() - started,
    };
  }

  private stopRun(run: ActiveRun, stop: HostStop): void {
    if (run.stop) return;
    run.stop = stop;
    run.controller.abort(new AbortError("the step that called this tool was stopped"));
    this.worker.interrupt();
    // A timeout has its own watchdog (armed in execute); other stops wait a short grace.
    if (stop !== "timeout") run.timers.push(setTimeout(run.giveUp, this.limits.stopGraceMs));
  }

  private handleToolCall(message: Extract<WorkerToHost, { type: "tool-call" }>): void {
    const run = this.active;
    const worker = this.worker;
    if (!run || run.id !== message.runId || run.stop) return;
    const { callId, name } = message;
    // Python waits for each tool synchronously and the harness counts them: a second call while
    // one is answered, one call too many or an oversized input means the sandbox is not the
    // harness any more. It is given up on (the run reports a crash), not obeyed.
    const violation =
      run.toolsInFlight > 0
        ? "it made a tool call while another was being answered"
        : ++run.toolCalls > this.limits.maxToolCalls
          ? `it made more than ${this.limits.maxToolCalls} tool calls (maxToolCalls)`
          : message.json.length > this.limits.maxTransferChars
            ? `it sent a tool input over ${this.limits.maxTransferChars} characters (maxTransferChars)`
            : undefined;
    if (violation) {
      this.breakRun(run, violation);
      return;
    }
    const reply = (outcome: Parameters<PythonSandboxClient["answerTool"]>[1]) => {
      if (this.active === run && !run.stop) worker.answerTool(callId, outcome);
    };
    const tool = this.tools.get(name);
    if (!tool) {
      reply({ ok: false, name: "ToolError", message: `${name} is not a tool` });
      return;
    }
    let input: unknown;
    try {
      input = JSON.parse(message.json);
    } catch {
      reply({ ok: false, name: "ToolError", message: `the arguments of ${name} did not arrive as JSON` });
      return;
    }
    run.toolsInFlight++;
    void runSandboxToolCall({
      tool,
      input,
      id: `call_${run.id}_${callId}`,
      signal: run.controller.signal,
      images: run.images,
      maxJsonChars: this.limits.maxTransferChars,
      limitName: "maxTransferChars",
      maxErrorChars: this.limits.maxErrorChars,
      ...(this.onToolCall ? { onToolCall: this.onToolCall } : {}),
    }).then((outcome) => {
      run.toolsInFlight--;
      if ("fatal" in outcome) this.stopRun(run, { fatal: outcome.fatal });
      else reply(outcome);
    });
  }

  /** The sandbox broke the protocol during `run`: it is terminated, and the run reports a crash. */
  private breakRun(run: ActiveRun, why: string): void {
    run.broken ??= why;
    void this.worker.terminate();
  }

  private toolList(): [string, string[]][] {
    return [...this.tools.values()].map((tool) => [tool.name, toolParameters(tool)]);
  }

  private async attachWorker(): Promise<void> {
    let worker: PythonSandboxClient;
    try {
      worker = await acquirePythonWorker(this.isolation);
    } catch (error) {
      throw this.isolation === "process" ? await explainSandboxFailure(error) : error;
    }
    try {
      const { memoryLimitBytes, maxPrintedChars, maxTransferChars, maxToolCalls, maxErrorChars } =
        this.limits;
      const limits = { memoryLimitBytes, maxPrintedChars, maxTransferChars, maxToolCalls, maxErrorChars };
      await worker.request({ type: "init", config: { limits, authorizedImports: this.imports } });
    } catch (error) {
      await worker.terminate();
      throw error;
    }
    worker.onToolCall = (message) => this.handleToolCall(message);
    this.worker = worker;
  }

  /** A new worker with the same tools; variables set by the host come back too. */
  private async replaceWorker(): Promise<void> {
    await this.worker.terminate();
    await this.attachWorker();
    if (this.tools.size) await this.worker.request({ type: "set-tools", tools: this.toolList() });
  }

  private startReplacement(): void {
    const replacement = this.replaceWorker();
    this.replacement = replacement;
    replacement.catch(() => undefined);
  }

  private async ready(): Promise<PythonSandboxClient> {
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
    if (this.closing) throw new ClosedError("PythonExecutor");
    if (this.active) throw new PythonExecutorBusyError(operation);
  }
}

function failed(started: number, error: ExecutionError): ExecutionResult {
  return {
    output: undefined,
    logs: "",
    isFinalAnswer: false,
    error,
    images: [],
    durationMs: performance.now() - started,
  };
}
