import { createHash } from "node:crypto";
import {
  AbortError,
  type ApprovalDecision,
  type ApprovalRequest,
  ClosedError,
  type CodeExecutor,
  type CodeLanguage,
  ConfigError,
  DEFAULT_APPROVAL_TIMEOUT_MS,
  type ExecutionError,
  type ExecutionResult,
  ExecutorBusyError,
  type ExecutorCapabilities,
  type ExecutorRunOptions,
  type JournalCall,
  ReplayMismatchError,
  type Tool,
} from "@atrium/spec";
import { SandboxExitError, SandboxProtocolError } from "../errors.js";
import { askApproval } from "../tool-call/ask-approval.js";
import {
  runSandboxToolCall,
  type SandboxToolOutcome,
  type ToolCallEvent,
} from "../tool-call/sandbox-tool-call.js";
import { describeThrown } from "../values/describe-thrown.js";
import { toJsonText } from "../values/sandbox-json.js";
import type { ExecutorLimits } from "./executor-limits.js";
import { type ExecutorRun, type HostStop, newExecutorRun } from "./executor-run.js";
import type { SandboxHost } from "./sandbox-host.js";

/**
 * The reason a run's tool signal aborts with. One shared instance: `abort()` without a reason
 * builds a DOMException with a stack trace on every tool step, a measurable part of its cost.
 */
const STEP_ENDED = new AbortError("the step that called this tool ended");

/** A variable's name and its value as JSON text (undefined: no value). */
export type VariableEntry = [name: string, json: string | undefined];

/**
 * The lifecycle every sandboxed `CodeExecutor` shares, over a `SandboxHost` (a worker thread,
 * an OS-sandboxed process, an interpreter in a guest): attaching a sandbox, replacing one that
 * was lost (in the background, so a run's time bound holds, with the next operation waiting for
 * it in `ready`), the busy rule (`assertIdle`: runs never overlap, a call during a run is
 * refused with `ExecutorBusyError`), the supervision of a run (abort, watchdog, a sandbox that
 * hangs, dies or breaks its protocol), tool calls through `runSandboxToolCall`, and close.
 *
 * A subclass says how to talk to its sandbox and nothing else, like smolagents'
 * `RemotePythonExecutor`, whose backends override two methods: `acquireHost`, `initHost`,
 * `installTools`, `installVariables`, `resetHost`, `startRun`, `interruptHost`, `toResult` and
 * `handleToolCall`; the rest has defaults to override where a sandbox differs.
 */
export abstract class SandboxedExecutor<ToolCall, Host extends SandboxHost<ToolCall>, Reply>
  implements CodeExecutor
{
  abstract readonly language: CodeLanguage;
  abstract readonly capabilities: ExecutorCapabilities;
  /** Names the executor in messages ("QuickJsExecutor is closed"). */
  protected abstract readonly executorName: string;
  protected abstract readonly limits: Readonly<ExecutorLimits>;
  /** Observes every tool call the code makes (call, progress, result). */
  protected onToolCall: ((event: ToolCallEvent) => void) | undefined;
  /** The sandbox; replaced when one is lost. */
  protected host!: Host;
  protected tools: ReadonlyMap<string, Tool> = new Map();
  /** The run under way, if any: while it is set, every other operation is refused. */
  protected active: ExecutorRun | undefined;
  private activeCompletion: Promise<unknown> | undefined;
  private closing: Promise<void> | undefined;
  /**
   * The replacement of a lost sandbox, started when a run gave up on it: the run returns at once
   * (its time bound holds) and the next operation waits for the new sandbox.
   */
  private replacement: Promise<void> | undefined;
  /** A fresh controller for the next run's tool calls, made while the host was idle. */
  private spareController: AbortController | undefined;

  // ── what each sandbox does its own way ───────────────────────────────────────────────────

  /** A sandbox for this executor: a warm one from a pool, or a new one. */
  protected abstract acquireHost(): Promise<Host>;
  /** Readies a sandbox for this executor (its limits, say) before anything else reaches it. */
  protected abstract initHost(host: Host): Promise<void>;
  /** Defines `this.tools` in the sandbox (after `setTools`, and in a replacement). */
  protected abstract installTools(host: Host): Promise<void>;
  protected abstract installVariables(host: Host, entries: readonly VariableEntry[]): Promise<void>;
  protected abstract resetHost(host: Host): Promise<void>;
  /**
   * Starts `code` in the sandbox and resolves with its reply, checked: a reply that fails the
   * checks rejects with `SandboxProtocolError`, a sandbox that died with `SandboxExitError`.
   */
  protected abstract startRun(host: Host, code: string, run: ExecutorRun): Promise<Reply>;
  /** Asks the sandbox to stop the code it runs (a stop flag, an interrupt, a signal). */
  protected abstract interruptHost(host: Host): void;
  /** The result of a run the sandbox answered. */
  protected abstract toResult(reply: Reply, run: ExecutorRun, code: string, started: number): ExecutionResult;
  /**
   * A tool call from the sandbox: the subclass checks it (against `activeRun`), finds the tool
   * and its input, and runs it with `callTool`; a call that breaks the protocol goes to `breakRun`.
   */
  protected abstract handleToolCall(call: ToolCall): void;

  /** Gives the sandbox up when the executor closes; ends it unless the subclass keeps it (a pool). */
  protected releaseHost(host: Host): Promise<void> {
    return host.terminate();
  }

  /** Why `name` cannot be a tool's name here, said after "cannot be a tool name"; undefined if it can. */
  protected toolNameProblem(_name: string): string | undefined {
    return undefined;
  }

  /** Why `name` cannot be a variable's name here, said after "cannot be a variable name". */
  protected variableNameProblem(name: string): string | undefined {
    return this.tools.has(name) ? ": it is a tool's name" : undefined;
  }

  /** Code refused before it reaches the sandbox (a length limit, say), as the run's error. */
  protected refuseCode(_code: string): ExecutionError | undefined {
    return undefined;
  }

  /**
   * Arms the run's timers for the `remainingMs` of its time limit it has left (all of it at the
   * start; less after a wait for an approval, which stops the clock). By default only the
   * watchdog: the sandbox keeps the deadline itself, and one that does not answer by
   * max(2 × timeout, timeout + watchdogGraceMs) of running time is given up on. A subclass whose
   * host keeps the deadline (it interrupts the sandbox at the timeout) arms the watchdog when it
   * interrupts instead, so the grace is the sandbox's time to stop.
   */
  protected armTimers(run: ExecutorRun, remainingMs: number): ReturnType<typeof setTimeout>[] {
    return [this.watchdogTimer(run, remainingMs + this.watchdogGraceMs(run))];
  }

  /** How long a sandbox has to answer past its deadline: max(timeout, watchdogGraceMs). */
  protected watchdogGraceMs(run: ExecutorRun): number {
    return Math.max(run.timeoutMs, this.limits.watchdogGraceMs);
  }

  /**
   * Gives the run's sandbox up `delayMs` from now unless it has answered by then. The verdict
   * waits for the event loop's next look at I/O (`setImmediate` runs after its poll phase): a
   * host that was itself held up past the moment (descheduled on a loaded machine, a long
   * synchronous task) runs its due timers before it reads what arrived meanwhile, and a sandbox
   * whose answer is already waiting there must not be judged hung and replaced.
   */
  protected watchdogTimer(run: ExecutorRun, delayMs: number): ReturnType<typeof setTimeout> {
    return setTimeout(() => setImmediate(run.giveUp), delayMs);
  }

  /**
   * Stops (`held`) or restarts the deadline a sandbox keeps itself, while a tool call of `run`
   * waits for an approval. Nothing by default: for a sandbox whose deadline is the host's timers.
   */
  protected holdSandboxClock(_host: Host, _run: ExecutorRun, _held: boolean): void {}

  /** What a run that hung past the watchdog reports (its sandbox was replaced). */
  protected hungMessage(run: ExecutorRun): string {
    return `The code did not finish within ${run.timeoutMs} ms and its sandbox was restarted; every variable is lost`;
  }

  /** What a run reports when its sandbox was lost: it hung past the watchdog, or it exited. */
  private lostSandboxError(loss: "hung" | SandboxExitError, run: ExecutorRun): ExecutionError {
    return loss === "hung"
      ? { kind: "timeout", name: "TimeoutError", message: this.hungMessage(run), stateLost: true }
      : {
          // The sandbox died (a wasm abort, an out-of-memory in the engine, a terminate): not
          // a limit the code hit, so not "memory".
          kind: "crashed",
          name: "SandboxCrashError",
          message: `The sandbox crashed (${loss.message}) and was restarted; every variable is lost`,
          stateLost: true,
        };
  }

  // ── the CodeExecutor ─────────────────────────────────────────────────────────────────────

  async run(code: string, options: ExecutorRunOptions = {}): Promise<ExecutionResult> {
    this.assertIdle("run()");
    if (typeof code !== "string") throw new ConfigError("run(code): code must be a string");
    if (options.signal?.aborted) throw new AbortError("The run was aborted before it started");
    const timeoutMs = options.timeoutMs ?? this.limits.timeoutMs;
    if (!Number.isFinite(timeoutMs) || timeoutMs <= 0) {
      throw new ConfigError(
        `${this.executorName}: timeoutMs must be a positive number, got ${String(timeoutMs)}`,
      );
    }
    const approvalTimeoutMs = options.approvalTimeoutMs ?? DEFAULT_APPROVAL_TIMEOUT_MS;
    if (!Number.isFinite(approvalTimeoutMs) || approvalTimeoutMs <= 0) {
      throw new ConfigError(
        `${this.executorName}: approvalTimeoutMs must be a positive number, got ${String(approvalTimeoutMs)}`,
      );
    }
    if (options.onApproval !== undefined && typeof options.onApproval !== "function") {
      throw new ConfigError(
        `${this.executorName}: onApproval must be a function (request, signal) => decision`,
      );
    }
    const run = newExecutorRun(timeoutMs, { handler: options.onApproval, timeoutMs: approvalTimeoutMs });
    if (options.journal) {
      if (!this.capabilities.replay) {
        throw new ConfigError(
          `${this.executorName} cannot record or replay runs (capabilities.replay is not true)`,
        );
      }
      run.journal = { ...options.journal, replayed: 0 };
      run.tape.record = true;
      if (options.journal.replay?.tape !== undefined) run.tape.replay = options.journal.replay.tape;
    }
    this.active = run;
    const completion = this.supervise(code, run, options.signal);
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
      const problem = this.toolNameProblem(tool.name);
      if (problem) throw new ConfigError(`setTools: "${tool.name}" cannot be a tool name ${problem}`);
      if (next.has(tool.name))
        throw new ConfigError(`setTools: two tools are named "${tool.name}"; names must be unique`);
      next.set(tool.name, tool);
    }
    this.tools = next;
    await this.installTools(await this.ready());
  }

  /** Copies each value in as JSON text (`toJsonText`), at most `maxTransferChars` of it. */
  async setVariables(variables: Record<string, unknown>): Promise<void> {
    this.assertIdle("setVariables()");
    const entries: VariableEntry[] = [];
    for (const [name, value] of Object.entries(variables)) {
      const problem = this.variableNameProblem(name);
      if (problem) throw new ConfigError(`setVariables: "${name}" cannot be a variable name${problem}`);
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
    await this.installVariables(await this.ready(), entries);
  }

  async reset(): Promise<void> {
    this.assertIdle("reset()");
    await this.resetHost(await this.ready());
  }

  /** Stops a run under way (its `run` rejects with `ClosedError`), then gives the sandbox up. */
  async close(): Promise<void> {
    this.closing ??= (async () => {
      if (this.active) this.stopRun(this.active, { type: "closed" });
      await this.activeCompletion;
      await this.replacement?.catch(() => undefined);
      await this.releaseHost(this.host);
    })();
    await this.closing;
  }

  /** `await using executor = await X.create()` closes it at the end of the block. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  // ── the lifecycle ────────────────────────────────────────────────────────────────────────

  /** What a subclass's `create` does: attach a sandbox, then install the tools it was given. */
  protected async open(tools: readonly Tool[] | undefined): Promise<void> {
    await this.attach();
    if (tools) await this.setTools(tools);
  }

  /** Takes a sandbox and readies it; a failure ends the sandbox and is the caller's error. */
  protected async attach(): Promise<void> {
    const host = await this.acquireHost();
    try {
      await this.initHost(host);
    } catch (error) {
      await host.terminate();
      throw error;
    }
    host.onToolCall = (call) => this.handleToolCall(call);
    this.host = host;
  }

  /** Ends the lost sandbox and attaches a new one with the same tools (variables are gone). */
  private async replaceHost(): Promise<void> {
    await this.host.terminate();
    await this.attach();
    if (this.tools.size) await this.installTools(this.host);
  }

  protected startReplacement(): void {
    const replacement = this.replaceHost();
    this.replacement = replacement;
    // Its failure is reported to the operation that waits for it (`ready`), not unhandled.
    replacement.catch(() => undefined);
  }

  /**
   * The sandbox, once a replacement under way is done. A failed replacement is this operation's
   * error, and the next operation tries again.
   */
  protected async ready(): Promise<Host> {
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
    return this.host;
  }

  /** The busy rule: nothing reaches a closed executor, nor one whose run is under way. */
  protected assertIdle(operation: string): void {
    if (this.closing) throw new ClosedError(this.executorName);
    if (this.active) throw new ExecutorBusyError(operation);
  }

  // ── one run ──────────────────────────────────────────────────────────────────────────────

  private async supervise(code: string, run: ExecutorRun, signal: AbortSignal | undefined) {
    const started = performance.now();
    const refused = this.refuseCode(code);
    if (refused) return this.failed(run, started, refused);
    const onAbort = () => this.stopRun(run, { type: "abort" });
    signal?.addEventListener("abort", onAbort, { once: true });
    const hung = new Promise<{ loss: "hung" }>((resolve) => {
      run.giveUp = () => resolve({ loss: "hung" });
    });
    let outcome: { reply: Reply } | { loss: "hung" | SandboxExitError };
    try {
      // No await on the common path: an idle await per step is measurable on trivial steps.
      const host = this.replacement ? await this.ready() : this.host;
      this.startClock(run);
      outcome = await Promise.race([this.startRun(host, code, run).then((reply) => ({ reply })), hung]);
    } catch (error) {
      if (error instanceof SandboxProtocolError) run.broken ??= error.message;
      else if (!(error instanceof SandboxExitError)) throw error;
      outcome = { loss: error instanceof SandboxExitError ? error : "hung" };
    } finally {
      if (run.journal?.record && run.tape.recorded !== undefined) run.journal.record.tape = run.tape.recorded;
      for (const timer of run.timers) clearTimeout(timer);
      for (const timer of run.clock.timers) clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
      this.endToolSignal(run);
    }
    if (run.broken !== undefined) {
      outcome = { loss: new SandboxExitError(`it broke the protocol: ${run.broken}`) };
    }
    // A sandbox that stopped answering (or died) is replaced; everything it held is gone.
    const lost = "loss" in outcome;
    if (lost && run.stop?.type === "closed") await this.host.terminate();
    else if (lost) this.startReplacement();
    if (run.stop?.type === "abort") {
      throw new AbortError(
        lost
          ? "The run was aborted; its sandbox did not stop in time and was restarted, so every variable is lost"
          : "The run was aborted",
      );
    }
    if (run.stop?.type === "closed") throw new ClosedError(this.executorName);
    if (run.stop?.type === "fatal") throw run.stop.error;
    if ("loss" in outcome) return this.failed(run, started, this.lostSandboxError(outcome.loss, run));
    return this.toResult(outcome.reply, run, code, started);
  }

  private failed(run: ExecutorRun, started: number, error: ExecutionError): ExecutionResult {
    return {
      output: undefined,
      logs: "",
      isFinalAnswer: false,
      error,
      images: run.images,
      durationMs: performance.now() - started,
    };
  }

  /**
   * Stops a run: its tool calls are aborted and the sandbox is interrupted. Guest code stops
   * within moments; a sandbox stuck in a long native call is given up on after `stopGraceMs`
   * instead of waited for (a timeout has the watchdog for that).
   */
  protected stopRun(run: ExecutorRun, stop: HostStop): void {
    if (run.stop) return;
    run.stop = stop;
    run.controller?.abort(STEP_ENDED);
    this.interruptHost(this.host);
    if (stop.type !== "timeout") run.timers.push(this.watchdogTimer(run, this.limits.stopGraceMs));
  }

  /** The sandbox broke its protocol during `run`: it is ended at once, and the run reports a crash. */
  protected breakRun(run: ExecutorRun, why: string): void {
    run.broken ??= why;
    run.giveUp();
    void this.host.terminate();
  }

  /** The run a message from the sandbox names, while it is under way and not stopped. */
  protected activeRun(runId: number): ExecutorRun | undefined {
    const run = this.active;
    return run && run.id === runId && !run.stop ? run : undefined;
  }

  /**
   * Runs a tool for a call of `run`'s code, the same way in every executor
   * (`runSandboxToolCall`: validation, the run's signal, images kept, the value as JSON within
   * `maxTransferChars`). `reply` gets the outcome while the run goes on; a fatal error ends the
   * run, which then rejects with it.
   */
  protected callTool(
    run: ExecutorRun,
    tool: Tool,
    input: unknown,
    id: string,
    reply: (outcome: SandboxToolOutcome) => void,
  ): void {
    // An id names one call of the run: an approval is asked and answered by it, so a sandbox
    // that sends one twice (a guest that picks its ids) could have a person approve another call.
    if (run.callIds.has(id)) {
      this.breakRun(run, `it used the tool-call id ${JSON.stringify(id)} twice in one run`);
      return;
    }
    run.callIds.add(id);
    if (run.journal) {
      const journaled = this.journalCall(run, run.journal, id, tool.name, input, reply);
      if (!journaled) return;
      reply = journaled;
    }
    run.controller ??= this.spareController ?? new AbortController();
    this.spareController = undefined;
    run.toolsRunning++;
    void runSandboxToolCall({
      tool,
      input,
      id,
      signal: run.controller.signal,
      images: run.images,
      maxJsonChars: this.limits.maxTransferChars,
      limitName: "maxTransferChars",
      maxErrorChars: this.limits.maxErrorChars,
      ...(this.onToolCall ? { onToolCall: this.onToolCall } : {}),
      ...(run.approval.handler ? { approve: (request) => this.awaitApproval(run, request) } : {}),
    }).then((outcome) => {
      run.toolsRunning--;
      if ("fatal" in outcome) this.stopRun(run, { type: "fatal", error: outcome.fatal });
      // An answer that arrives after its run ended is dropped: the sandbox may serve others now.
      else if (this.active === run && !run.stop) reply(outcome);
    });
  }

  // ── replay ───────────────────────────────────────────────────────────────────────────────

  /**
   * A call of a run that records or replays. While the replayed record has calls left, the next
   * one answers this call (undefined: answered, nothing runs) if it is the same call; another
   * call ends the run with `ReplayMismatchError`. Past them, the call runs live, and the reply
   * returned also records its outcome.
   */
  private journalCall(
    run: ExecutorRun,
    journal: NonNullable<ExecutorRun["journal"]>,
    id: string,
    name: string,
    input: unknown,
    reply: (outcome: SandboxToolOutcome) => void,
  ): ((outcome: SandboxToolOutcome) => void) | undefined {
    const entry: JournalCall = { id, name, input: journalInput(input) };
    journal.record?.toolCalls.push(entry);
    const index = journal.replayed;
    const recorded = journal.replay?.toolCalls[index];
    if (recorded) {
      journal.replayed++;
      if (recorded.name !== entry.name || recorded.input !== entry.input) {
        const error = new ReplayMismatchError(
          `the replay made another call than the record: call ${journal.replayed} was ${recorded.name}(${cut(recorded.input)}), now ${entry.name}(${cut(entry.input)}); the sandbox's state cannot be rebuilt from this record`,
        );
        this.stopRun(run, { type: "fatal", error });
        return undefined;
      }
      // A call that had not finished when the record was taken is not run again (its effect may
      // have happened), except the one the record says waits for its answer (`pending`).
      if (!recorded.outcome && index !== journal.replay?.pending) {
        const outcome: SandboxToolOutcome = {
          ok: false,
          name: "ToolError",
          message: `Tool "${name}" was not run again: its call had not finished when the run was saved, so whether it took effect is unknown`,
        };
        entry.outcome = outcome;
        reply(outcome);
        return undefined;
      }
      if (recorded.outcome) {
        entry.outcome = recorded.outcome;
        reply(
          recorded.outcome.ok
            ? { ok: true, json: recorded.outcome.json }
            : {
                ok: false,
                name: recorded.outcome.name === "ValidationError" ? "ValidationError" : "ToolError",
                message: recorded.outcome.message,
              },
        );
        return undefined;
      }
    }
    return (outcome) => {
      entry.outcome = outcome;
      reply(outcome);
    };
  }

  // ── the step's clock and approvals ───────────────────────────────────────────────────────

  private startClock(run: ExecutorRun): void {
    run.clock.armedAt = performance.now();
    run.clock.timers = this.armTimers(run, run.timeoutMs);
  }

  /**
   * Asks the run's handler about a tool call (`askApproval`) with the step's clock stopped: a
   * person's time is not the code's. The wait ends with the run too (its tool signal aborts).
   */
  private async awaitApproval(run: ExecutorRun, request: ApprovalRequest): Promise<ApprovalDecision> {
    this.holdClock(run);
    try {
      return await askApproval(run.approval.handler!, request, {
        timeoutMs: run.approval.timeoutMs,
        signal: run.controller!.signal,
      });
    } finally {
      this.releaseClock(run);
    }
  }

  private holdClock(run: ExecutorRun): void {
    const clock = run.clock;
    if (clock.holds++ > 0 || run.stop || this.active !== run) return;
    for (const timer of clock.timers) clearTimeout(timer);
    clock.timers = [];
    clock.spentMs += performance.now() - clock.armedAt;
    this.holdSandboxClock(this.host, run, true);
  }

  private releaseClock(run: ExecutorRun): void {
    const clock = run.clock;
    if (--clock.holds > 0 || run.stop || this.active !== run) return;
    clock.armedAt = performance.now();
    clock.timers = this.armTimers(run, Math.max(0, run.timeoutMs - clock.spentMs));
    this.holdSandboxClock(this.host, run, false);
  }

  /**
   * Aborts the run's tool signal. A tool still running learns it before `run` returns; when every
   * tool call has settled, the abort (and a spare controller for the next run) waits for the
   * event loop's next turn, off the path of the result.
   */
  private endToolSignal(run: ExecutorRun): void {
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
}

/** A call's input in a message: its first 200 characters. */
function cut(text: string): string {
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}

/**
 * A call's input as the journal keeps it: its JSON text, or for a long one its SHA-256 (a replay
 * only compares inputs, and a guest must not be able to make a saved run too large to resume).
 */
function journalInput(input: unknown): string {
  const text = toJsonText(input) ?? "null";
  if (text.length <= MAX_JOURNAL_INPUT_CHARS) return text;
  return `sha256:${createHash("sha256").update(text).digest("hex")}`;
}

/** The longest input the journal keeps as text. */
const MAX_JOURNAL_INPUT_CHARS = 1_000;
