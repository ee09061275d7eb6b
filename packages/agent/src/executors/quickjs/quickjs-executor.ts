import {
  describeThrown,
  type ExecutorRun,
  limitOptions,
  SandboxedExecutor,
  SandboxProtocolError,
  type ToolCallEvent,
  type VariableEntry,
} from "@atrium/kit";
import {
  ConfigError,
  type ExecutionResult,
  type ExecutorCapabilities,
  TOOL_NAME_PATTERN,
  type Tool,
} from "@atrium/spec";
import { DEFAULT_QUICKJS_LIMITS, type QuickJsLimits, resolveQuickJsLimits } from "../../limits.js";
import { fromJsonText } from "./json-crossing.js";
import { QUICKJS_ISOLATIONS, type QuickJsIsolation, quickJsCapabilities } from "./quickjs-capabilities.js";
import { RESERVED_NAMES } from "./reserved-names.js";
import { checkReplayTape } from "./run-tape.js";
import type { QuickJsSandboxHandle, SandboxRequest, ToolCallMessage } from "./sandbox-handle.js";
import { acquireSandbox, prewarmSandboxes, releaseSandbox } from "./sandbox-pools.js";
import { checkMemory, checkRunResult, checkToolCall } from "./worker-message-checks.js";
import type { SandboxMemory, SessionRunResult, ToolOutcome } from "./worker-protocol.js";

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

const VARIABLE_NAME = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/**
 * A `CodeExecutor` for JavaScript on QuickJS (quickjs-emscripten). The interpreter lives in a
 * worker thread with its own wasm instance, so guest code never blocks the host's event loop
 * and can always be stopped. Notebook semantics (top-level declarations persist, top-level
 * `await`, the last expression is the output), tools as async functions bridged to the host,
 * and limits on time, memory, stack, output, tool calls and promise jobs. See the README.
 *
 * The lifecycle (sandbox replacement, the busy rule, run supervision, close) is kit's
 * `SandboxedExecutor`; this class says how to talk to a QuickJS sandbox worker.
 */
export class QuickJsExecutor extends SandboxedExecutor<
  ToolCallMessage,
  QuickJsSandboxHandle,
  SessionRunResult
> {
  readonly language = "javascript" as const;
  readonly capabilities: ExecutorCapabilities;
  readonly isolation: QuickJsIsolation;
  protected readonly executorName = "QuickJsExecutor";
  protected readonly limits: Readonly<QuickJsLimits>;

  private constructor(options: QuickJsExecutorOptions) {
    super();
    this.limits = resolveQuickJsLimits(limitOptions(options, DEFAULT_QUICKJS_LIMITS));
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
    await executor.open(options.tools);
    return executor;
  }

  /**
   * Boots sandbox workers ahead of need (at most 4 are kept idle): the first `create()` otherwise
   * waits for a thread to start (tens of milliseconds; about a second from TypeScript sources).
   */
  static async prewarm(count = 1, isolation: QuickJsIsolation = "worker"): Promise<void> {
    await prewarmSandboxes(count, isolation);
  }

  /** The sandbox's memory: bytes QuickJS has allocated, and the size of its wasm memory. */
  async memoryUsage(): Promise<SandboxMemory> {
    this.assertIdle("memoryUsage()");
    return checkMemory(await (await this.ready()).request({ type: "memory" }));
  }

  // ── how to talk to a QuickJS sandbox ─────────────────────────────────────────────────────

  protected acquireHost(): Promise<QuickJsSandboxHandle> {
    return acquireSandbox(this.isolation);
  }

  protected async initHost(host: QuickJsSandboxHandle): Promise<void> {
    await host.request({ type: "init", limits: this.limits });
  }

  /** An idle worker goes back to the pool (wiped) for the next executor; a process ends. */
  protected override releaseHost(host: QuickJsSandboxHandle): Promise<void> {
    return releaseSandbox(host);
  }

  protected async installTools(host: QuickJsSandboxHandle): Promise<void> {
    await host.request({ type: "set-tools", names: [...this.tools.keys()] });
  }

  protected async installVariables(
    host: QuickJsSandboxHandle,
    entries: readonly VariableEntry[],
  ): Promise<void> {
    try {
      await host.request({ type: "set-variables", entries: [...entries] });
    } catch (error) {
      throw new ConfigError(`setVariables: ${describeThrown(error)}`, { cause: error });
    }
  }

  protected async resetHost(host: QuickJsSandboxHandle): Promise<void> {
    await host.request({ type: "reset" });
  }

  /**
   * QuickJS keeps the deadline itself (its interrupt handler), so the host arms only the watchdog.
   * A step that records (`run.tape.record`, set by the kit) asks for its tape, giving a replay
   * tape first if there is one (refused here, before the step, when it is bad or incomplete).
   */
  protected startRun(host: QuickJsSandboxHandle, code: string, run: ExecutorRun): Promise<SessionRunResult> {
    const request = { type: "run" as const, runId: run.id, code, timeoutMs: run.timeoutMs };
    if (run.tape.record) return this.startRecordedRun(host, request, run);
    host.clearStop();
    return host.request(request).then((reply) => checkRunResult(reply, this.limits));
  }

  private startRecordedRun(
    host: QuickJsSandboxHandle,
    request: Extract<SandboxRequest, { type: "run" }>,
    run: ExecutorRun,
  ): Promise<SessionRunResult> {
    const { replay } = run.tape;
    const tape = replay === undefined ? {} : { replay: checkReplayTape(replay) };
    host.clearStop();
    return host.request({ ...request, tape }).then((reply) => {
      const result = checkRunResult(reply, this.limits, true);
      run.tape.recorded = result.tape;
      return result;
    });
  }

  protected interruptHost(host: QuickJsSandboxHandle): void {
    host.stop();
  }

  protected toResult(
    outcome: SessionRunResult,
    run: ExecutorRun,
    _code: string,
    started: number,
  ): ExecutionResult {
    return {
      images: run.images,
      durationMs: performance.now() - started,
      output: fromJsonText(outcome.outputJson),
      logs: outcome.logs,
      isFinalAnswer: outcome.isFinalAnswer,
      ...(outcome.error ? { error: outcome.error } : {}),
    };
  }

  protected override holdSandboxClock(host: QuickJsSandboxHandle, run: ExecutorRun, held: boolean): void {
    host.post({ type: "clock", runId: run.id, held });
  }

  protected handleToolCall(message: ToolCallMessage): void {
    const run = this.activeRun(message.runId);
    if (!run) return;
    try {
      checkToolCall(message, this.limits);
    } catch (error) {
      if (!(error instanceof SandboxProtocolError)) throw error;
      this.breakRun(run, error.message);
      return;
    }
    const host = this.host;
    const { runId, callId, name } = message;
    const reply = (outcome: ToolOutcome) => host.post({ type: "tool-result", runId, callId, outcome });
    const tool = this.tools.get(name);
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
    this.callTool(run, tool, input, callId, reply);
  }

  protected override toolNameProblem(name: string): string | undefined {
    if (TOOL_NAME_PATTERN.test(name) && !RESERVED_NAMES.has(name)) return undefined;
    return `in the sandbox; use an identifier (${TOOL_NAME_PATTERN}) other than ${[...RESERVED_NAMES].join(", ")}`;
  }

  protected override variableNameProblem(name: string): string | undefined {
    if (VARIABLE_NAME.test(name) && !RESERVED_NAMES.has(name) && !this.tools.has(name)) return undefined;
    return `; use an identifier that is not a tool name or one of ${[...RESERVED_NAMES].join(", ")}`;
  }
}
