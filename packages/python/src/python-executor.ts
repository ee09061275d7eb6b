import {
  boundOutput,
  type ExecutorRun,
  limitOptions,
  SandboxedExecutor,
  SandboxProtocolError,
  type ToolCallEvent,
  type VariableEntry,
} from "@atrium/kit";
import {
  ConfigError,
  type ExecutionError,
  type ExecutionResult,
  type ExecutorCapabilities,
  type Tool,
} from "@atrium/spec";
import { authorizedImports } from "./authorized-imports.js";
import { DEFAULT_PYTHON_LIMITS, type PythonLimits, resolvePythonLimits } from "./limits.js";
import { JAVASCRIPT_HINT, looksLikeJavaScript } from "./looks-like-javascript.js";
import { PythonIsolation, pythonCapabilities } from "./python-isolation.js";
import { badPythonName, toolParameters } from "./python-names.js";
import type { PythonSandboxClient, ToolCallMessage } from "./python-sandbox-client.js";
import { harnessTapeRequest, recordedTape } from "./python-tape.js";
import { explainSandboxFailure } from "./sandbox/explain-sandbox-failure.js";
import { acquirePythonWorker, prewarmPythonWorkers } from "./worker-pool.js";
import type { HarnessRunResult, ToolOutcome } from "./worker-protocol.js";

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

/** A run's reply from the harness, with its value read out of the JSON it sent. */
interface PythonReply {
  result: HarnessRunResult;
  output: unknown;
}

/**
 * A `CodeExecutor` for Python: CPython in WebAssembly (Pyodide, offline from its npm package) in
 * a worker thread. Notebook semantics (variables, functions and imports persist; the last
 * expression is the output), `print` captured and bounded, tools as synchronous Python
 * functions bridged to the host's async tools, an import allow-list, and limits on time,
 * memory, output and tool calls. A run that overstays its time is interrupted; one that will
 * not stop has its worker replaced (`stateLost`). See the README.
 *
 * The lifecycle (sandbox replacement, the busy rule, run supervision, close) is kit's
 * `SandboxedExecutor`; this class says how to talk to a Pyodide sandbox.
 */
export class PythonExecutor extends SandboxedExecutor<ToolCallMessage, PythonSandboxClient, PythonReply> {
  readonly language = "python" as const;
  readonly capabilities: ExecutorCapabilities;
  readonly isolation: PythonIsolation;
  protected readonly executorName = "PythonExecutor";
  protected readonly limits: Readonly<PythonLimits>;
  private readonly imports: string[];

  private constructor(options: PythonExecutorOptions) {
    super();
    this.limits = resolvePythonLimits(limitOptions(options, DEFAULT_PYTHON_LIMITS));
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
    await executor.open(options.tools);
    return executor;
  }

  /**
   * Boots `count` workers ahead of need (at most 4 are kept warm): the first `create()` otherwise
   * waits for Pyodide to load (about 1.6 s on an idle machine).
   */
  static async prewarm(count = 1, isolation: PythonIsolation = PythonIsolation.default): Promise<void> {
    await prewarmPythonWorkers(count, isolation);
  }

  // ── how to talk to a Pyodide sandbox ─────────────────────────────────────────────────────

  protected async acquireHost(): Promise<PythonSandboxClient> {
    try {
      return await acquirePythonWorker(this.isolation);
    } catch (error) {
      throw this.isolation === "process" ? await explainSandboxFailure(error) : error;
    }
  }

  protected async initHost(host: PythonSandboxClient): Promise<void> {
    const { maxMemoryBytes, maxPrintedChars, maxTransferChars, maxToolCalls, maxErrorChars } = this.limits;
    const limits = { maxMemoryBytes, maxPrintedChars, maxTransferChars, maxToolCalls, maxErrorChars };
    await host.request({ type: "init", config: { limits, authorizedImports: this.imports } });
  }

  protected async installTools(host: PythonSandboxClient): Promise<void> {
    const tools = [...this.tools.values()].map((tool): [string, string[]] => [
      tool.name,
      toolParameters(tool),
    ]);
    await host.request({ type: "set-tools", tools });
  }

  protected async installVariables(
    host: PythonSandboxClient,
    entries: readonly VariableEntry[],
  ): Promise<void> {
    await host.request({
      type: "set-variables",
      entries: entries.map(([name, json]): [string, string | null] => [name, json ?? null]),
    });
  }

  protected async resetHost(host: PythonSandboxClient): Promise<void> {
    await host.request({ type: "reset" });
  }

  protected override refuseCode(code: string): ExecutionError | undefined {
    if (code.length <= this.limits.maxCodeChars) return undefined;
    return {
      kind: "runtime",
      name: "RangeError",
      message: `The code is ${code.length} characters long; the limit is ${this.limits.maxCodeChars}. Split the work into smaller steps.`,
    };
  }

  /**
   * The host keeps the deadline: at `timeoutMs` it interrupts the code (KeyboardInterrupt), and
   * the sandbox has the watchdog's grace from that interrupt to stop; code that catches it (or
   * sits in one long native call) is given up on after the grace. Counted from the interrupt,
   * not from the start: a host held up past the deadline (descheduled on a loaded machine, a
   * long synchronous task) interrupts late, and the sandbox still gets its whole grace.
   */
  protected override armTimers(run: ExecutorRun, remainingMs: number): ReturnType<typeof setTimeout>[] {
    return [
      setTimeout(() => {
        this.stopRun(run, { type: "timeout" });
        run.timers.push(this.watchdogTimer(run, this.watchdogGraceMs(run)));
      }, remainingMs),
    ];
  }

  /**
   * A step that records (`run.tape.record`, set by the kit) carries a tape request: the replay's
   * seed and clock values, or a new seed; a bad replay tape is refused here, before the step.
   */
  protected startRun(host: PythonSandboxClient, code: string, run: ExecutorRun): Promise<PythonReply> {
    const tape = run.tape.record ? harnessTapeRequest(run.tape.replay) : undefined;
    host.clearInterrupt();
    const deadline = Date.now() + run.timeoutMs;
    return host
      .request({ type: "run", runId: run.id, code, deadline, ...(tape ? { tape } : {}) })
      .then((result) => {
        if (tape) run.tape.recorded = recordedTape(tape, result.tape);
        else if (result.tape !== undefined)
          throw new SandboxProtocolError("it reported a tape for a step that recorded none");
        return { result, output: this.readOutput(result) };
      });
  }

  protected interruptHost(host: PythonSandboxClient): void {
    host.interrupt();
  }

  protected override hungMessage(run: ExecutorRun): string {
    return `The code did not stop within ${run.timeoutMs} ms (it may catch KeyboardInterrupt); its sandbox was restarted, so every variable is lost`;
  }

  protected toResult(
    { result, output }: PythonReply,
    run: ExecutorRun,
    code: string,
    started: number,
  ): ExecutionResult {
    let error = result.error;
    if (error && error.message.length > this.limits.maxErrorChars) {
      // The harness cuts its messages already; the host does not take a longer one on trust.
      error = { ...error, message: `${error.message.slice(0, this.limits.maxErrorChars)}… (cut)` };
    }
    if (result.interrupted || run.stop?.type === "timeout") {
      error = {
        kind: "timeout",
        name: "TimeoutError",
        message: `The code did not finish within ${run.timeoutMs} ms and was interrupted; variables set before the interruption are kept`,
      };
    } else if (error?.kind === "syntax" && looksLikeJavaScript(code)) {
      error = { ...error, message: `${error.message}. ${JAVASCRIPT_HINT}` };
    }
    const interrupted = error?.kind === "timeout";
    return {
      output: interrupted ? undefined : output,
      logs: boundOutput(result.logs, this.limits.maxOutputChars),
      isFinalAnswer: !interrupted && result.isFinalAnswer,
      ...(error ? { error } : {}),
      images: run.images,
      durationMs: performance.now() - started,
    };
  }

  protected handleToolCall(message: ToolCallMessage): void {
    const run = this.activeRun(message.runId);
    if (!run) return;
    const { callId, name } = message;
    // Python waits for each tool synchronously and the harness counts them: a second call while
    // one is answered, one call too many or an oversized input means the sandbox is not the
    // harness any more. It is given up on (the run reports a crash), not obeyed.
    const violation =
      run.toolsRunning > 0
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
    const host = this.host;
    const reply = (outcome: ToolOutcome) => host.answerTool(callId, outcome);
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
    this.callTool(run, tool, input, `call_${run.id}_${callId}`, reply);
  }

  protected override toolNameProblem(name: string): string | undefined {
    const bad = badPythonName(name);
    return bad ? `in Python: ${bad}` : undefined;
  }

  protected override variableNameProblem(name: string): string | undefined {
    const bad = badPythonName(name) ?? (this.tools.has(name) ? "it is a tool's name" : undefined);
    return bad ? `: ${bad}` : undefined;
  }

  /**
   * The run's value, read from the sandbox's JSON. The harness sends at most `maxTransferChars`
   * of valid JSON; anything else did not come from it, so the sandbox is given up on.
   */
  private readOutput(result: HarnessRunResult): unknown {
    const json = result.outputJson;
    if (json === null) return undefined;
    if (json.length > this.limits.maxTransferChars) {
      throw new SandboxProtocolError(
        `it sent a result over ${this.limits.maxTransferChars} characters (maxTransferChars)`,
      );
    }
    try {
      return JSON.parse(json);
    } catch {
      throw new SandboxProtocolError("it sent a result that is not JSON");
    }
  }
}
