import { createHash, randomUUID } from "node:crypto";
import { constants } from "node:fs";
import { open } from "node:fs/promises";
import { dirname, join } from "node:path";
import { NO_APPROVER_REASON, toJsonText } from "@atrium/kit";
import {
  type ApprovalDecision,
  type ApprovalHandler,
  AtriumError,
  type CodeExecutor,
  ConfigError,
  type ExecutionError,
  type ExecutionResult,
  type ExecutorFactory,
  errorMessage,
  isApprovalDecision,
  ParseError,
  ReplayMismatchError,
  type SerializedError,
  type StepJournal,
  serializeError,
  type Usage,
} from "@atrium/spec";
import {
  ContinuationError,
  MAX_CONTINUATION_CHARS,
  openContinuation,
  signContinuation,
} from "../continuation/continuation-codec.js";
import {
  type ContinuationKeySource,
  checkPrivateFolder,
  loadContinuationKey,
} from "../continuation/continuation-key.js";
import { type CodeRunState, parseCodeRunState } from "../continuation/continuation-state.js";
import type { CodeDialect } from "../dialects/code-dialect.js";
import { dialectFor } from "../dialects/dialect-for.js";
import { QuickJsExecutor } from "../executors/index.js";
import { resolveAgentLoopLimits } from "../limits.js";
import { codeAgentSystemPrompt } from "../prompts/code-agent-prompt.js";
import { AgentMemory } from "./agent-memory.js";
import {
  type CodeBlockFormat,
  type CodeBlockStyle,
  codeBlockFormat,
  extractCode,
  noCodeBlockMessage,
} from "./code-blocks.js";
import type { ActionStep, SerializedMemory } from "./memory-steps.js";
import { MultiStepAgent, type RunContext } from "./multi-step-agent.js";
import { codeObservation } from "./observation.js";
import type { AgentOptions, RunOptions, RunResult } from "./run-types.js";
import { keepStepImages } from "./step-images.js";

/** Makes a sandbox; called once per agent, and once per call when the agent is a managed agent. */
export type CreateExecutor = () => CodeExecutor | Promise<CodeExecutor>;

export interface CodeAgentOptions extends AgentOptions {
  /**
   * Where the code runs: an `ExecutorFactory` or a function making executors (the default makes
   * a `QuickJsExecutor`), or one executor instance. An instance cannot be copied, so an agent
   * given one cannot be used with `asTool`. The executor's language picks the agent's dialect
   * (prompt, code blocks, tool signatures); a language without one is a `ConfigError`.
   */
  executor?: CodeExecutor | ExecutorFactory | CreateExecutor;
  /** How the model marks code: "markdown" (```js fences, the default), "xml" or custom tags. */
  codeBlockTags?: CodeBlockStyle;
  /** Wall-clock budget of one code step (default `DEFAULT_AGENT_LOOP_LIMITS.stepTimeoutMs`; checked by `resolveAgentLoopLimits`). */
  stepTimeoutMs?: number;
  /** What the sandbox allows, shown to the model; defaults suit the executor's language. */
  capabilities?: readonly string[];
  /**
   * Runs can be saved while a tool call waits for an approval (the handler answers `{ suspend:
   * true }`) and resumed later, in this process or another, with `resume`. Every step is then
   * recorded (its tool calls and the values of its random numbers and clock) so that a resume
   * can rebuild the sandbox by replaying them; the saved run is signed with this key, which is
   * never part of it. Needs an executor that can replay (`capabilities.replay`).
   */
  resumable?: ContinuationKeySource & {
    /**
     * Where resumed runs are noted, so each continuation goes on once: default `used/` beside the
     * key file; with a key given as bytes and no folder, this process remembers them.
     */
    usedDir?: string;
    /**
     * Where a sandbox saved whole (a micro-VM's snapshot) is written when a run is suspended:
     * default `snapshots/` beside the key file (or the system's temporary folder for a key given
     * as bytes). The continuation names the file and signs its SHA-256.
     */
    snapshotDir?: string;
  };
}

/** How `resume` goes on: the answer to the call the run waits for, and the run's options. */
export interface ResumeOptions
  extends Omit<RunOptions, "images" | "reset" | "memory" | "variables" | "maxSteps"> {
  /** The answer to the tool call the run was suspended on. */
  decision: ApprovalDecision;
}

/**
 * An agent whose actions are code: each step the model writes a code block, the sandbox runs
 * it (tools are async functions inside), and the logs, last value or error (with the failing
 * line) come back as the observation. State persists between steps like a notebook.
 */
export class CodeAgent extends MultiStepAgent {
  readonly #codeOptions: CodeAgentOptions;
  readonly #stepTimeoutMs: number;
  #executor: CodeExecutor | undefined;
  /** Whether the sandbox may hold state from earlier runs (a fresh one needs no reset). */
  #dirty = false;
  #format: CodeBlockFormat | undefined;
  #dialect: CodeDialect | undefined;
  #systemPrompt: string | undefined;
  /**
   * When runs are resumable: every step the sandbox ran since it was last reset (code and
   * journal, in order) and the variables set first, which a resume replays to rebuild it.
   */
  #history: { variables: Record<string, unknown>; steps: { code: string; journal: StepJournal }[] } = {
    variables: {},
    steps: [],
  };
  #key: Promise<Buffer> | undefined;

  constructor(options: CodeAgentOptions) {
    super(options);
    this.#codeOptions = options;
    this.#stepTimeoutMs = resolveAgentLoopLimits({ stepTimeoutMs: options.stepTimeoutMs }).stepTimeoutMs;
    const executor = options.executor;
    if (executor !== undefined && typeof executor !== "function") {
      if (isInstance(executor)) dialectFor(languageOf(executor));
      else if (isFactory(executor)) dialectFor(executor.capabilities.language);
      else {
        throw new ConfigError(
          "executor must be a CodeExecutor, an ExecutorFactory or a function returning a CodeExecutor",
        );
      }
    }
    if (options.codeBlockTags !== undefined) codeBlockFormat(options.codeBlockTags, "javascript");
  }

  /** The sandbox of this agent (created on first use). */
  async executor(): Promise<CodeExecutor> {
    if (this.#executor) return this.#executor;
    const given = this.#codeOptions.executor;
    const executor =
      given === undefined
        ? await QuickJsExecutor.create()
        : typeof given === "function"
          ? await given()
          : isFactory(given)
            ? await given.create()
            : given;
    await this.#adopt(executor, true);
    return executor;
  }

  /** Makes `executor` this agent's sandbox: its dialect, and (`install`) the agent's tools in it. */
  async #adopt(executor: CodeExecutor, install: boolean): Promise<void> {
    let dialect: CodeDialect;
    try {
      dialect = dialectFor(languageOf(executor));
    } catch (error) {
      if (this.#ownsExecutor()) await executor.close();
      throw error;
    }
    if (install) await executor.setTools(this.instrumentedTools);
    this.#executor = executor;
    // An instance from the caller may carry state; one we just made is clean.
    this.#dirty = !this.#ownsExecutor();
    this.#dialect = dialect;
    this.#format = codeBlockFormat(this.#codeOptions.codeBlockTags ?? "markdown", dialect);
    this.#systemPrompt = undefined;
  }

  /** Closes the sandbox if the agent made it; an executor instance passed in stays open (it is yours). */
  override async close(): Promise<void> {
    const executor = this.#executor;
    this.#executor = undefined;
    this.#systemPrompt = undefined;
    if (this.#ownsExecutor()) await executor?.close();
  }

  #ownsExecutor(): boolean {
    const given = this.#codeOptions.executor;
    return given === undefined || !isInstance(given);
  }

  protected override fork(): CodeAgent {
    if (!this.#ownsExecutor()) {
      throw new ConfigError(
        "this CodeAgent was given one executor instance, which parallel managed-agent calls would share; pass a factory instead: executor: quickJsExecutorFactory()",
      );
    }
    return new CodeAgent(this.#codeOptions);
  }

  protected override async prepareRun(variables: Record<string, unknown> | undefined): Promise<void> {
    const executor = await this.executor();
    if (this.#codeOptions.resumable) suspensionOf(executor);
    if (variables && Object.keys(variables).length) {
      this.#dirty = true;
      await executor.setVariables(variables);
      Object.assign(this.#history.variables, variables);
    }
  }

  protected override async resetState(): Promise<void> {
    this.#history = { variables: {}, steps: [] };
    // A sandbox we have not made yet is clean; one passed in is adopted now so that it is reset too.
    const executor = this.#executor ?? (this.#ownsExecutor() ? undefined : await this.executor());
    if (!executor || !this.#dirty) return;
    await executor.reset();
    this.#dirty = false;
  }

  protected override canSuspend(): boolean {
    return this.#codeOptions.resumable !== undefined;
  }

  /**
   * Goes on with a run saved when it was suspended (`result.continuation`): checks the
   * signature, rebuilds the sandbox by replaying every step it had run (tool calls answered from
   * their records, never run again; a replay that makes another call is refused with
   * `ReplayMismatchError`), then runs the suspended step's code again up to the call that waited,
   * gives that call `decision`, and goes on as `run` would. Works in a new process: the agent
   * needs the same tools, executor language and `resumable` key.
   */
  async resume(continuation: string, options: ResumeOptions): Promise<RunResult> {
    if (!isApprovalDecision(options?.decision)) {
      throw new ConfigError(
        "resume(continuation, { decision }): decision must be { approved: true } or { approved: false, reason? }",
      );
    }
    const state = parseCodeRunState(openContinuation(continuation, await this.#continuationKey()));
    if (state.tools !== this.#toolsFingerprint()) {
      throw new ContinuationError(
        "this agent's tools are not the saved run's (their names or input schemas differ); resume it with the agent that saved it",
      );
    }
    await this.#claim(state.id);
    const memory = AgentMemory.fromJSON(state.memory as SerializedMemory);
    const { decision, ...runOptions } = options;
    this.memory = memory;
    return this.resumeFrom(state.task, runOptions, {
      step: state.pending.step,
      maxSteps: state.maxSteps,
      stepCount: state.stepCount,
      usage: state.usage,
      prepare: () => (state.snapshot ? this.#restore(state.snapshot, state.language) : this.#replay(state)),
      action: (run) =>
        state.snapshot
          ? this.#finishRestored(run, state.pending, decision)
          : this.#resumedAction(run, state.pending, decision),
    });
  }

  /**
   * A continuation goes on once: its id is claimed before anything runs, so a copy resumed again
   * (a log, a redelivered message, a second click) is refused rather than run its calls twice.
   * Claimed as a file created exclusively in `used/` beside the key file (across processes), or
   * in this process's memory for a key given as bytes without a `usedDir`.
   */
  async #claim(id: string): Promise<void> {
    const resumable = this.#codeOptions.resumable!;
    const dir =
      resumable.usedDir ?? ("keyFile" in resumable ? join(dirname(resumable.keyFile), "used") : undefined);
    if (!dir) {
      if (RESUMED_IN_PROCESS.has(id)) throw new ContinuationError(ALREADY_RESUMED);
      RESUMED_IN_PROCESS.add(id);
      return;
    }
    await checkPrivateFolder(dir, "the folder of resumed runs");
    try {
      await (
        await open(join(dir, id), constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o600)
      ).close();
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "EEXIST") throw new ContinuationError(ALREADY_RESUMED);
      throw error;
    }
  }

  /** What the saved run's tools were: their names and input schemas, hashed. */
  #toolsFingerprint(): string {
    const tools = [...this.tools]
      .sort((a, b) => a.name.localeCompare(b.name))
      .map((t) => [t.name, t.inputSchema]);
    return createHash("sha256").update(JSON.stringify(tools)).digest("hex");
  }

  /** The key continuations are signed with (read once). */
  #continuationKey(): Promise<Buffer> {
    const source = this.#codeOptions.resumable;
    if (!source) {
      return Promise.reject(
        new ConfigError(
          "this CodeAgent cannot resume runs; give it `resumable: { keyFile }` (or { key }), the one the run was saved with",
        ),
      );
    }
    this.#key ??= loadContinuationKey(source);
    this.#key.catch(() => {
      this.#key = undefined;
    });
    return this.#key;
  }

  /** Rebuilds the sandbox of a saved run: a clean one, its variables, then every step replayed. */
  async #replay(state: CodeRunState): Promise<void> {
    const executor = await this.executor();
    if (languageOf(executor) !== state.language) {
      throw new ContinuationError(
        `the run was saved from a ${state.language} sandbox; this agent's executor runs ${languageOf(executor)}`,
      );
    }
    this.#dirty = true;
    await this.resetState();
    if (state.variables && Object.keys(state.variables).length) await this.prepareRun(state.variables);
    for (const [index, { code, journal }] of state.replay.entries()) {
      const record: StepJournal = { toolCalls: [] };
      const result = await executor.run(code, {
        timeoutMs: this.#stepTimeoutMs,
        journal: { replay: journal, record },
      });
      if (result.error?.stateLost) {
        throw new ReplayMismatchError(
          `replaying step ${index + 1} of the saved run lost the sandbox (${result.error.message}); its state cannot be rebuilt`,
        );
      }
      this.#history.steps.push({ code, journal: record });
    }
  }

  /**
   * The suspended step, finished: its code runs again with its record (the calls it made before
   * the suspension are answered from it), and the call it was suspended on gets `decision`.
   */
  async #resumedAction(
    run: RunContext,
    pending: CodeRunState["pending"],
    decision: ApprovalDecision,
  ): Promise<ActionStep> {
    return this.#execute(run, {
      code: pending.code,
      modelOutput: pending.modelOutput,
      usage: pending.usage,
      startedAt: pending.startedAt,
      started: performance.now(),
      replay: pending.journal,
      onApproval: this.#answering(run, pending, decision),
    });
  }

  /**
   * A sandbox saved whole (a snapshot), restored: checked against the digest the signed state
   * holds (a changed file is refused), by the executor factory's `restore`.
   */
  async #restore(
    snapshot: NonNullable<CodeRunState["snapshot"]>,
    language: CodeRunState["language"],
  ): Promise<void> {
    const given = this.#codeOptions.executor;
    if (given === undefined || typeof given === "function" || !isFactory(given) || !given.restore) {
      throw new ConfigError(
        "this run was saved as a snapshot of its sandbox; resuming it needs an executor factory that can restore one (executor: microVmExecutorFactory(...))",
      );
    }
    // Opened once: the file checked is the file restored (through /proc/self/fd), even if the
    // path is given another file in between.
    let handle: Awaited<ReturnType<typeof open>>;
    let digest: string;
    try {
      await checkPrivateFolder(dirname(snapshot.path), "the snapshot folder");
      handle = await open(snapshot.path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
      // A pipe or a device would give other bytes to each reader: only a file is read twice alike.
      if (!(await handle.stat()).isFile()) {
        await handle.close();
        throw new Error("it is not a regular file");
      }
      digest = await sha256Of(handle);
    } catch (error) {
      throw new ContinuationError(
        `the run's snapshot ${snapshot.path} cannot be read: ${errorMessage(error)}`,
      );
    }
    let executor: CodeExecutor;
    try {
      if (digest !== snapshot.sha256) {
        throw new ContinuationError(
          `the run's snapshot ${snapshot.path} was changed after the run was saved (its SHA-256 differs from the one the continuation signed)`,
        );
      }
      const previous = this.#executor;
      this.#executor = undefined;
      if (previous && this.#ownsExecutor()) await previous.close();
      executor = await given.restore(`/proc/self/fd/${handle.fd}`, this.instrumentedTools);
    } finally {
      await handle.close();
    }
    if (languageOf(executor) !== language) {
      await executor.close();
      throw new ContinuationError(
        `the run was saved from a ${language} sandbox; this agent's executor runs ${languageOf(executor)}`,
      );
    }
    await this.#adopt(executor, false);
    this.#dirty = true;
  }

  /** The step a restored snapshot was waiting in, finished by its executor. */
  async #finishRestored(
    run: RunContext,
    pending: CodeRunState["pending"],
    decision: ApprovalDecision,
  ): Promise<ActionStep> {
    const executor = this.#executor!;
    if (typeof executor.finishWaitingRun !== "function") {
      throw new ConfigError("the restored executor cannot finish the run it was saved in (finishWaitingRun)");
    }
    run.emit({ type: "code", step: run.step, language: executor.language, code: pending.code });
    const result = await executor.finishWaitingRun({
      signal: run.signal,
      timeoutMs: this.#stepTimeoutMs,
      onApproval: this.#answering(run, pending, decision),
      approvalTimeoutMs: run.approvalTimeoutMs,
    });
    return this.#actionFrom(run, { ...pending, started: performance.now() }, result);
  }

  /**
   * The approvals of a resumed step: the first request is the call the run was suspended on
   * (another one means the continuation does not fit), answered with `decision`; later ones go
   * to the run's own handler.
   */
  #answering(run: RunContext, pending: CodeRunState["pending"], decision: ApprovalDecision): ApprovalHandler {
    let answered = false;
    return (request, signal) => {
      if (answered)
        return run.approve ? run.approve(request, signal) : { approved: false, reason: NO_APPROVER_REASON };
      answered = true;
      const expected = pending.request;
      if (
        request.toolName !== expected.toolName ||
        toJsonText(request.input) !== toJsonText(expected.input)
      ) {
        throw new ReplayMismatchError(
          `the resumed step asked for approval of ${request.toolName}, but the run was suspended on ${expected.toolName}; the continuation does not match this agent's tools or code`,
        );
      }
      run.emit({
        type: "approval-resolved",
        step: run.step,
        id: request.toolCallId,
        name: request.toolName,
        approved: decision.approved,
        ...(decision.approved === false && decision.reason ? { reason: decision.reason } : {}),
      });
      return decision;
    };
  }

  protected override systemPrompt(): string {
    if (this.#systemPrompt) return this.#systemPrompt;
    const dialect = this.#dialect!;
    const format = this.#format!;
    this.#systemPrompt = codeAgentSystemPrompt({
      language: dialect.language,
      dialect,
      tools: this.tools,
      open: format.open,
      close: format.close,
      capabilities: this.#codeOptions.capabilities ?? dialect.sandboxCapabilities,
      ...(this.instructions ? { instructions: this.instructions } : {}),
    });
    return this.#systemPrompt;
  }

  protected override async actionStep(run: RunContext): Promise<ActionStep> {
    const startedAt = Date.now();
    const started = performance.now();
    const format = this.#format!;
    const response = await this.callModel(run, this.messagesFor(run.system), {
      stopSequences: format.stopSequences,
    });
    const usage = response.usage;
    const text = response.message.content;
    const timing = () => ({ startedAt, durationMs: performance.now() - started });
    const extracted = extractCode(text, format);
    if (!extracted) {
      const error = new ParseError(noCodeBlockMessage(format, this.#dialect!));
      return {
        type: "action",
        step: run.step,
        modelOutput: text,
        observation: `Error: ${error.message}`,
        isFinalAnswer: false,
        error: serializeError(error),
        usage,
        timing: timing(),
      };
    }
    return this.#execute(run, {
      code: extracted.code,
      modelOutput: extracted.modelOutput,
      usage,
      startedAt,
      started,
      ...(run.approve ? { onApproval: run.approve } : {}),
    });
  }

  /**
   * Runs a step's code and makes the step of it. When runs are resumable the step is recorded,
   * and a run suspended during it (a handler answered `{ suspend: true }`) is saved here, from
   * what the step had done, before the abort ends the run.
   */
  async #execute(run: RunContext, step: StepToRun): Promise<ActionStep> {
    const executor = this.#executor!;
    run.emit({ type: "code", step: run.step, language: executor.language, code: step.code });
    this.#dirty = true;
    const suspension = this.#codeOptions.resumable ? suspensionOf(executor) : undefined;
    const record: StepJournal | undefined = suspension === "replay" ? { toolCalls: [] } : undefined;
    let snapshot: CodeRunState["snapshot"];
    if (suspension === "snapshot") {
      // Taken while the guest waits on the call, before the suspension stops the step.
      run.beforeSuspend = async () => {
        snapshot = await this.#snapshotWaitingRun(run, executor);
      };
    }
    let result: ExecutionResult;
    try {
      result = await executor.run(step.code, {
        signal: run.signal,
        timeoutMs: this.#stepTimeoutMs,
        ...(step.onApproval ? { onApproval: step.onApproval, approvalTimeoutMs: run.approvalTimeoutMs } : {}),
        ...(record ? { journal: { record, ...(step.replay ? { replay: step.replay } : {}) } } : {}),
      });
    } catch (error) {
      if (suspension && run.suspended) {
        run.continuation = await this.#save(run, step, record ?? { toolCalls: [] }, snapshot);
      }
      throw error;
    } finally {
      run.beforeSuspend = undefined;
    }
    if (record) {
      // A sandbox that was restarted lost everything the steps before had made.
      if (result.error?.stateLost) this.#history = { variables: {}, steps: [] };
      else this.#history.steps.push({ code: step.code, journal: record });
    }
    return this.#actionFrom(run, step, result);
  }

  /** Saves the sandbox whole while its run waits on the call the run is suspended on. */
  async #snapshotWaitingRun(run: RunContext, executor: CodeExecutor): Promise<CodeRunState["snapshot"]> {
    const resumable = this.#codeOptions.resumable!;
    const dir =
      resumable.snapshotDir ??
      ("keyFile" in resumable ? join(dirname(resumable.keyFile), "snapshots") : undefined);
    if (!dir) {
      throw new ConfigError(
        "a micro-VM run is saved as a snapshot file: give `resumable.snapshotDir` (a private folder) with a key given as bytes",
      );
    }
    await checkPrivateFolder(dir, "the snapshot folder");
    const path = join(dir, `${run.runId}-step-${run.step}.snapshot`);
    await executor.saveWaitingRun!(path);
    return { path, sha256: await sha256File(path) };
  }

  /** The memory step of a step's code and its result. */
  #actionFrom(
    run: RunContext,
    step: Omit<StepToRun, "onApproval" | "replay">,
    result: ExecutionResult,
  ): ActionStep {
    const { startedAt, started, usage } = step;
    const timing = () => ({ startedAt, durationMs: performance.now() - started });
    const failed = result.error !== undefined;
    const kept = keepStepImages(result.images ?? []);
    const observation = codeObservation(result, this.maxObservationChars);
    return {
      type: "action",
      step: run.step,
      modelOutput: step.modelOutput,
      code: step.code,
      logs: result.logs,
      observation: kept.note ? `${observation}\n${kept.note}` : observation,
      ...(kept.images.length ? { images: kept.images } : {}),
      ...(result.output === undefined ? {} : { output: result.output }),
      isFinalAnswer: result.isFinalAnswer && !failed,
      ...(result.error ? { error: executionError(result.error) } : {}),
      usage,
      timing: timing(),
    };
  }

  /** The run, saved and signed at its suspension: everything `resume` needs to go on. */
  async #save(
    run: RunContext,
    step: StepToRun,
    record: StepJournal,
    snapshot: CodeRunState["snapshot"],
  ): Promise<string> {
    const { request, step: stepNumber } = run.suspended!;
    // The call this run waits on is the one a replay lets run, for the resume's answer.
    const pendingIndex = record.toolCalls.findIndex((call) => call.id === request.toolCallId);
    if (pendingIndex >= 0) record.pending = pendingIndex;
    const state: CodeRunState = {
      kind: "code-agent",
      id: randomUUID(),
      tools: this.#toolsFingerprint(),
      runId: run.runId,
      task: run.task,
      language: languageOf(this.#executor!),
      memory: this.memory.toJSON() as CodeRunState["memory"],
      ...(Object.keys(this.#history.variables).length ? { variables: this.#history.variables } : {}),
      replay: snapshot ? [] : this.#history.steps,
      ...(snapshot ? { snapshot } : {}),
      pending: {
        step: stepNumber,
        modelOutput: step.modelOutput,
        code: step.code,
        journal: record,
        usage: step.usage,
        startedAt: step.startedAt,
        request: { toolCallId: request.toolCallId, toolName: request.toolName, input: request.input },
      },
      maxSteps: run.maxSteps,
      stepCount: run.stepCount,
      usage: run.usage,
      suspendedAt: new Date().toISOString(),
    };
    const signed = signContinuation(state, await this.#continuationKey());
    if (signed.length > MAX_CONTINUATION_CHARS) {
      throw new AtriumError(
        "LIMIT_EXCEEDED",
        `the run cannot be saved: its continuation would be ${signed.length} characters, over the ${MAX_CONTINUATION_CHARS} a resume reads (the steps' tool results are too large)`,
        { isFatal: true },
      );
    }
    return signed;
  }
}

/** A step's code, ready to run: what the model wrote, and how its approvals and replay go. */
interface StepToRun {
  code: string;
  modelOutput: string;
  usage: Usage;
  startedAt: number;
  started: number;
  onApproval?: ApprovalHandler;
  /** The step's record from before a suspension, to replay up to where it stopped. */
  replay?: StepJournal;
}

const ERROR_CODES: Partial<Record<ExecutionError["kind"], SerializedError["code"]>> = {
  tool: "TOOL",
  timeout: "TIMEOUT",
  memory: "LIMIT_EXCEEDED",
  "output-limit": "LIMIT_EXCEEDED",
};

function isInstance(executor: CodeExecutor | ExecutorFactory | CreateExecutor): executor is CodeExecutor {
  return (
    typeof executor === "object" && executor !== null && typeof (executor as CodeExecutor).run === "function"
  );
}

function isFactory(executor: CodeExecutor | ExecutorFactory | CreateExecutor): executor is ExecutorFactory {
  return (
    typeof executor === "object" &&
    executor !== null &&
    typeof (executor as ExecutorFactory).create === "function" &&
    typeof (executor as ExecutorFactory).capabilities?.language === "string"
  );
}

/** Executors written before capabilities existed still name their language. */
function languageOf(executor: CodeExecutor): CodeExecutor["language"] {
  return executor.capabilities?.language ?? executor.language;
}

/** A step error as memory keeps it; the observation already told the model the details. */
function executionError(error: ExecutionError): SerializedError {
  const line = error.line === undefined ? "" : ` (line ${error.line})`;
  return {
    name: error.name,
    code: ERROR_CODES[error.kind] ?? "EXECUTION",
    message: `${error.message}${line}`,
    isRetryable: false,
    isFatal: false,
  };
}

/** Continuations resumed in this process when no folder records them (a key given as bytes). */
const RESUMED_IN_PROCESS = new Set<string>();

const ALREADY_RESUMED =
  "this continuation was resumed already; a saved run goes on once (save the new continuation a resumed run gives if it suspends again)";

/** How a run of `executor` is saved when it is suspended; a ConfigError when it cannot be. */
function suspensionOf(executor: CodeExecutor): "replay" | "snapshot" {
  if (executor.capabilities?.replay) return "replay";
  if (executor.capabilities?.snapshots && typeof executor.saveWaitingRun === "function") return "snapshot";
  throw new ConfigError(
    `resumable runs need an executor that can replay steps or save a waiting run (capabilities.replay or .snapshots); this ${executor.capabilities?.isolation ?? ""} ${executor.language} executor can do neither`,
  );
}

async function sha256File(path: string): Promise<string> {
  const handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW);
  try {
    return await sha256Of(handle);
  } finally {
    await handle.close();
  }
}

/** The SHA-256 of an open file, read from its start (the descriptor stays open). */
async function sha256Of(handle: Awaited<ReturnType<typeof open>>): Promise<string> {
  const hash = createHash("sha256");
  const stream = handle.createReadStream({ start: 0, autoClose: false });
  for await (const chunk of stream) hash.update(chunk as Buffer);
  return hash.digest("hex");
}
