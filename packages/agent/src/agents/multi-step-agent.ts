import {
  AbortError,
  type Agent,
  type AgentEvent,
  AtriumError,
  ConfigError,
  errorMessage,
  type GenerateOptions,
  type Message,
  type Model,
  ModelError,
  type ModelResponse,
  rethrowIfFatal,
  serializeError,
  type Tool,
  type Usage,
  ZERO_USAGE,
} from "@atrium/spec";
import type { Context } from "@opentelemetry/api";
import { DEFAULT_AGENT_LOOP_LIMITS } from "../limits.js";
import { ATTR, inSpan, SPAN, startSpan } from "../observability/tracing.js";
import {
  closingPrompt,
  END_PLAN,
  initialPlanPrompt,
  rejectedAnswerNote,
  updatePlanPrompt,
} from "../prompts/loop-prompts.js";
import { AgentMemory } from "./agent-memory.js";
import { checkTools, describeVariables, nonNegativeInteger, positiveInteger } from "./agent-options.js";
import { AgentRun, type RunContext, type RunOutcome } from "./agent-run.js";
import { loadImages } from "./load-images.js";
import {
  checkLongTermMemory,
  type LongTermMemoryOptions,
  recallForTask,
  runMemory,
} from "./long-term-memory.js";
import {
  type ManagedAgentInput,
  type ManagedAgentToolOptions,
  managedAgentTool,
} from "./managed-agent-tool.js";
import type { ActionStep, FinalAnswerStep, MemoryStep, PlanningStep } from "./memory-steps.js";
import { throwIfAborted } from "./run-abort.js";
import type { AgentOptions, FinalAnswerCheck, RunOptions, RunResult, StepCallback } from "./run-types.js";
import { imagePartOf, type StoredImage } from "./stored-image.js";
import { instrumentTool } from "./tool-runner.js";
import { truncateMiddle } from "./truncate.js";

export type { RunContext } from "./agent-run.js";

/** Where a saved run goes on (`resumeFrom`): its step, its tallies, and how to rebuild and finish it. */
export interface ResumePoint {
  /** The step the run stopped in, which `action` finishes. */
  step: number;
  maxSteps: number;
  /** Action steps and tokens of the run before that step. */
  stepCount: number;
  usage: Usage;
  /** Rebuilds what the run had outside its memory (the sandbox's state), inside the run. */
  prepare(run: RunContext): Promise<void>;
  action(run: RunContext): Promise<ActionStep>;
}

/**
 * The loop every agent shares: task → optional planning → action steps until a final answer
 * or `maxSteps` (then one closing call that must answer), with events, spans, step callbacks,
 * final-answer checks, aborts and resumable memory. Subclasses supply the system prompt and
 * one action step.
 */
export abstract class MultiStepAgent implements Agent {
  readonly model: Model;
  readonly tools: readonly Tool[];
  readonly name: string | undefined;
  readonly description: string | undefined;
  readonly maxSteps: number;
  readonly planningInterval: number | undefined;
  readonly instructions: string | undefined;
  /** Everything the agent has done since the last reset; `memory.toJSON()` saves it. */
  memory = new AgentMemory();

  protected readonly options: AgentOptions;
  protected readonly keepImagesForSteps: number;
  protected readonly maxObservationChars: number;
  /** The tools as the loop calls them: validated, evented and traced. */
  protected readonly instrumentedTools: readonly Tool[];
  readonly #stepCallbacks: readonly StepCallback[];
  readonly #finalAnswerChecks: readonly FinalAnswerCheck[];
  readonly #longTermMemory: LongTermMemoryOptions | undefined;
  #scope: RunContext | undefined;
  #running = false;

  constructor(options: AgentOptions) {
    if (!options || typeof options.model?.generate !== "function") {
      throw new ConfigError(
        "an agent needs a model: { model: resolveModel('openai:gpt-4o-mini') } or any Model",
      );
    }
    this.options = options;
    this.model = options.model;
    this.tools = checkTools(options.tools ?? []);
    this.name = options.name;
    this.description = options.description;
    this.maxSteps = positiveInteger("maxSteps", options.maxSteps ?? DEFAULT_AGENT_LOOP_LIMITS.maxSteps);
    this.planningInterval =
      options.planningInterval === undefined
        ? undefined
        : positiveInteger("planningInterval", options.planningInterval);
    this.instructions = options.instructions;
    this.#longTermMemory = checkLongTermMemory(options.longTermMemory);
    this.keepImagesForSteps = nonNegativeInteger(
      "keepImagesForSteps",
      options.keepImagesForSteps ?? DEFAULT_AGENT_LOOP_LIMITS.keepImagesForSteps,
    );
    this.maxObservationChars = positiveInteger(
      "maxObservationChars",
      options.maxObservationChars ?? DEFAULT_AGENT_LOOP_LIMITS.maxObservationChars,
    );
    this.#stepCallbacks = options.stepCallbacks ?? [];
    this.#finalAnswerChecks = options.finalAnswerChecks ?? [];
    this.instrumentedTools = this.tools.map((each) => instrumentTool(each, () => this.#currentScope()));
  }

  /** The system prompt; called once per run, after `prepareRun`. */
  protected abstract systemPrompt(): string;

  /** One think-act-observe step. Non-fatal failures belong in the returned step, not thrown. */
  protected abstract actionStep(run: RunContext): Promise<ActionStep>;

  /** A new agent with the same configuration and fresh state, for isolated managed-agent calls. */
  protected abstract fork(): MultiStepAgent;

  /** Gets the agent ready for a run (e.g. creates the sandbox and sets variables). */
  protected async prepareRun(_variables: Record<string, unknown> | undefined): Promise<void> {}

  /** Drops state kept outside memory (e.g. the sandbox's variables). */
  protected async resetState(): Promise<void> {}

  /** Frees what the agent holds (its sandbox). The agent can run again afterwards. */
  async close(): Promise<void> {}

  /** `await using agent = new CodeAgent(...)` closes it at the end of the block. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  /**
   * Runs the task to its end and returns the result. An exception thrown by `onEvent` stops the
   * run (as an abort) and `run` rejects with that exception, whatever `throwOnError` says.
   */
  async run(task: string, options: RunOptions = {}): Promise<RunResult> {
    return this.#drain(this.#runSteps(task, options, false), options);
  }

  /**
   * Goes on with a saved run (see `CodeAgent.resume`): `point.prepare` rebuilds what the run had
   * (its sandbox), then the step it stopped in is finished by `point.action`, and the loop goes
   * on from there as `run` would. `this.memory` must hold the run's steps before that one.
   */
  protected resumeFrom(task: string, options: RunOptions, point: ResumePoint): Promise<RunResult> {
    return this.#drain(this.#runSteps(task, options, false, point), options);
  }

  /** Whether a run can be saved when an approval handler answers `{ suspend: true }`. */
  protected canSuspend(): boolean {
    return false;
  }

  async #drain(
    steps: AsyncGenerator<AgentEvent, RunOutcome, undefined>,
    options: RunOptions,
  ): Promise<RunResult> {
    let next = await steps.next();
    while (!next.done) next = await steps.next();
    const { result, thrown, observerFailure } = next.value;
    if (observerFailure) throw observerFailure.error;
    if (thrown !== undefined && options.throwOnError !== false) throw thrown;
    return result;
  }

  /**
   * Runs the task and yields its events as they happen, model output token by token. Leaving
   * the loop early (`break`) aborts the run. An exception thrown by `onEvent` stops the run (as
   * an abort): the stream yields the remaining events (`error`, `run-end`) and then throws it.
   * The run waits for its consumer between steps: an iterator that is neither read to its end
   * nor closed (`return()`) keeps the agent busy.
   */
  async *stream(task: string, options: RunOptions = {}): AsyncGenerator<AgentEvent, void, undefined> {
    const { observerFailure } = yield* this.#runSteps(task, { ...options, streamModel: true }, true);
    if (observerFailure) throw observerFailure.error;
  }

  /**
   * This agent as a tool of another: `{ task, additional_args? }` in, the final answer out.
   * Every call runs on a fresh copy (own memory, own sandbox), so parallel calls never share
   * state.
   */
  asTool(options: ManagedAgentToolOptions = {}): Tool<ManagedAgentInput> {
    this.fork(); // fails now, not at the first call, if this agent cannot be copied
    return managedAgentTool(
      { name: options.name ?? this.name, description: options.description ?? this.description },
      () => this.fork(),
    );
  }

  /** Calls the model for one purpose (action, planning, closing) inside a span, streaming when asked. */
  protected async callModel(
    run: RunContext,
    messages: Message[],
    options: GenerateOptions,
    parent: Context | undefined = run.spanContext,
  ): Promise<ModelResponse> {
    const request = { ...this.options.modelOptions, ...options, signal: run.signal };
    return inSpan(
      SPAN.model,
      { [ATTR.model]: this.model.id, [ATTR.step]: run.step },
      parent,
      async (span) => {
        const response = run.streaming
          ? await this.#streamModel(run, messages, request)
          : await this.model.generate(messages, request);
        span.setAttributes({
          [ATTR.inputTokens]: response.usage.inputTokens,
          [ATTR.outputTokens]: response.usage.outputTokens,
          [ATTR.finishReason]: [response.finishReason],
        });
        run.emit({
          type: "model-output",
          step: run.step,
          text: response.message.content,
          usage: response.usage,
        });
        return response;
      },
    );
  }

  async #streamModel(run: RunContext, messages: Message[], options: GenerateOptions): Promise<ModelResponse> {
    for await (const part of this.model.stream(messages, options)) {
      if (part.type === "text-delta") run.emit({ type: "model-delta", step: run.step, text: part.text });
      else if (part.type === "finish") return part.response;
    }
    throw new ModelError(`model ${this.model.id}: the stream ended without a finish part`);
  }

  #currentScope(): RunContext {
    if (!this.#scope) throw new ConfigError("a tool of this agent was called outside of a run");
    return this.#scope;
  }

  /**
   * The loop, as one generator that `run` drains and `stream` forwards: it yields the run's
   * events as they happen and returns how the run ended. Setting up (checks, images, memory)
   * throws before any event; once `run-start` is out, failures end the run as events instead.
   * Events always reach `onEvent` as they happen; they are yielded only when `yieldsEvents`
   * (`run` reads none, so it gets only the outcome, without queueing each event).
   */
  async *#runSteps(
    task: string,
    options: RunOptions,
    yieldsEvents: boolean,
    resume?: ResumePoint,
  ): AsyncGenerator<AgentEvent, RunOutcome, undefined> {
    if (typeof task !== "string" || task.trim() === "")
      throw new ConfigError("run(task): task must be a non-empty string");
    if (this.#running) {
      throw new ConfigError(
        "this agent is already running; use agent.asTool() or create another agent for concurrent runs",
      );
    }
    this.#running = true;
    let run: AgentRun;
    try {
      const maxSteps = positiveInteger("maxSteps", options.maxSteps ?? this.maxSteps);
      const images = resume ? [] : await loadImages(options.images);
      if (resume) {
        // The caller restored the memory of the saved run.
      } else if (options.memory !== undefined) {
        this.memory =
          options.memory instanceof AgentMemory ? options.memory : AgentMemory.fromJSON(options.memory);
        await this.resetState();
      } else if (options.reset !== false) {
        this.memory = new AgentMemory();
        await this.resetState();
      }
      const approvalTimeoutMs = options.approvalTimeoutMs ?? this.options.approvalTimeoutMs;
      if (approvalTimeoutMs !== undefined) positiveInteger("approvalTimeoutMs", approvalTimeoutMs);
      const onApproval = options.onApproval ?? this.options.onApproval;
      if (onApproval !== undefined && typeof onApproval !== "function") {
        throw new ConfigError(
          "onApproval must be a function (request, signal) => { approved: true | false }",
        );
      }
      const runOptions = {
        ...options,
        ...(onApproval ? { onApproval } : {}),
        ...(approvalTimeoutMs === undefined ? {} : { approvalTimeoutMs }),
      };
      run = new AgentRun(
        task,
        resume?.maxSteps ?? maxSteps,
        this.memory.steps.length,
        runOptions,
        yieldsEvents,
        this.canSuspend(),
      );
      if (resume) {
        run.stepCount = resume.stepCount;
        run.addUsage(resume.usage);
      }
      this.#scope = run;
      yield* this.#loop(run, images, options.variables, resume);
    } finally {
      this.#scope = undefined;
      this.#running = false;
    }
    // The agent is free again before the last events go out, so a consumer may start the next run.
    yield* run.drain();
    return run.outcome();
  }

  /** From `run-start` to `run-end`, inside the run's span. */
  async *#loop(
    run: AgentRun,
    images: StoredImage[],
    variables: Record<string, unknown> | undefined,
    resume?: ResumePoint,
  ): AsyncGenerator<AgentEvent, void, undefined> {
    const attributes = { [ATTR.runId]: run.runId, ...(this.name ? { [ATTR.agentName]: this.name } : {}) };
    const { span, spanContext: runSpan } = startSpan(SPAN.run, attributes, undefined);
    run.emit({
      type: "run-start",
      runId: run.runId,
      task: run.task,
      ...(images.length ? { images: images.map(imagePartOf) } : {}),
    });
    let finished = false;
    try {
      try {
        throwIfAborted(run.signal);
        let system: string;
        if (resume) {
          yield* run.during(resume.prepare(run));
          // The saved run's system prompt; memory recalled for it then is in its memory steps.
          system = this.systemPrompt();
        } else {
          yield* run.during(this.prepareRun(variables));
          const recalled = yield* run.during(this.#recall(run));
          system = recalled ? `${this.systemPrompt()}\n\n${recalled}` : this.systemPrompt();
          const note = variables ? describeVariables(variables) : "";
          this.memory.push({
            type: "task",
            task: note ? `${run.task}\n\n${note}` : run.task,
            ...(images.length ? { images } : {}),
          });
        }
        run.system = system;
        for (let step = resume?.step ?? 1; step <= run.maxSteps && run.state !== "success"; step++) {
          yield* this.#step(run, step, system, runSpan, step === resume?.step ? resume.action : undefined);
        }
        if (run.state === "max_steps") yield* this.#closingStep(run, system, runSpan);
        if (run.state === "success") yield* run.during(this.#fileRun(run));
      } catch (error) {
        run.fail(error);
      }
      finished = true;
    } finally {
      // Reached without `finished` only when the consumer left the stream at a yield.
      if (!finished) {
        run.stopReading();
        run.fail(new AbortError("the stream's consumer stopped reading"));
      }
      span.setAttributes({
        [ATTR.runState]: run.state,
        [ATTR.runSteps]: run.stepCount,
        [ATTR.inputTokens]: run.usage.inputTokens,
        [ATTR.outputTokens]: run.usage.outputTokens,
      });
      span.end();
      run.end(this.memory.steps);
    }
  }

  /** Long-term memory for this task, as text for the system prompt ("" without one). */
  async #recall(run: AgentRun): Promise<string> {
    const memory = this.#longTermMemory;
    if (!memory) return "";
    const started = performance.now();
    const recalled = await recallForTask(memory, run.task);
    run.emit({
      type: "memory-recalled",
      memories: recalled.memories,
      durationMs: performance.now() - started,
      ...(recalled.error === undefined ? {} : { error: recalled.error }),
    });
    return recalled.text;
  }

  /** Files the task and its answer; a failure is reported, never turns a success into an error. */
  async #fileRun(run: AgentRun): Promise<void> {
    const memory = this.#longTermMemory;
    if (!memory || memory.fileRuns === false) return;
    const started = performance.now();
    try {
      const filed = await memory.store.remember({
        content: runMemory(run.task, run.output),
        source: this.name ?? "agent",
        timestamp: new Date().toISOString(),
      });
      run.emit({ type: "memory-filed", ids: [filed.id], durationMs: performance.now() - started });
    } catch (error) {
      run.emit({
        type: "memory-filed",
        ids: [],
        durationMs: performance.now() - started,
        error: errorMessage(error),
      });
    }
  }

  /** One step: an optional plan, then the action, its observation and, maybe, the final answer. */
  async *#step(
    run: AgentRun,
    step: number,
    system: string,
    runSpan: Context,
    resumed?: ResumePoint["action"],
  ): AsyncGenerator<AgentEvent> {
    // The consumer sees the previous step's events before this one starts (and may stop here).
    yield* run.drain();
    throwIfAborted(run.signal);
    run.step = step;
    run.spanContext = runSpan;
    if (!resumed && this.planningInterval && (step - 1) % this.planningInterval === 0) {
      const plan = yield* run.during(this.#plan(run, system, step));
      run.addUsage(plan.usage);
    }
    run.emit({ type: "step-start", step });
    const action = yield* run.during(this.#actionStepInSpan(run, runSpan, resumed));
    run.stepCount = step;
    run.addUsage(action.usage);
    this.memory.push(action);
    run.emit({
      type: "observation",
      step,
      text: action.observation,
      ...(action.images?.length ? { images: action.images.map(imagePartOf) } : {}),
    });
    yield* this.#stepCallbacksOf(run, action);
    run.emit({
      type: "step-end",
      step,
      durationMs: action.timing.durationMs,
      usage: action.usage,
      ...(action.error ? { error: action.error } : {}),
    });
    if (!action.isFinalAnswer) return;
    run.output = action.output;
    run.state = "success";
    const final: FinalAnswerStep = {
      type: "final-answer",
      output: action.output,
      source: "final_answer",
      usage: ZERO_USAGE,
      timing: { startedAt: Date.now(), durationMs: 0 },
    };
    this.memory.push(final);
    yield* this.#stepCallbacksOf(run, final);
    run.emit({ type: "final-answer", step, output: run.output });
  }

  /** After `maxSteps` without an answer: one model call that must answer. */
  async *#closingStep(run: AgentRun, system: string, runSpan: Context): AsyncGenerator<AgentEvent> {
    yield* run.drain();
    throwIfAborted(run.signal);
    run.step = run.maxSteps + 1;
    run.spanContext = runSpan;
    const startedAt = Date.now();
    const started = performance.now();
    const messages = [
      ...this.messagesFor(system),
      { role: "user" as const, content: closingPrompt(run.task) },
    ];
    const response = yield* run.during(this.callModel(run, messages, {}));
    const final: FinalAnswerStep = {
      type: "final-answer",
      output: response.message.content.trim(),
      source: "max_steps",
      modelOutput: response.message.content,
      usage: response.usage,
      timing: { startedAt, durationMs: performance.now() - started },
    };
    this.memory.push(final);
    yield* this.#stepCallbacksOf(run, final);
    run.addUsage(final.usage);
    run.output = final.output;
    run.emit({ type: "final-answer", step: run.step, output: run.output });
  }

  async #actionStepInSpan(
    run: AgentRun,
    runSpan: Context,
    resumed?: ResumePoint["action"],
  ): Promise<ActionStep> {
    return inSpan(SPAN.step, { [ATTR.step]: run.step }, runSpan, async (span, stepSpan) => {
      run.spanContext = stepSpan;
      const action = await (resumed ? resumed(run) : this.actionStep(run));
      if (action.isFinalAnswer) await this.#checkFinalAnswer(run, action);
      span.setAttributes({
        [ATTR.stepFinal]: action.isFinalAnswer,
        [ATTR.inputTokens]: action.usage.inputTokens,
        [ATTR.outputTokens]: action.usage.outputTokens,
      });
      return action;
    });
  }

  /** Runs the checks in order; the first rejection turns the answer into an observation. */
  async #checkFinalAnswer(run: RunContext, action: ActionStep): Promise<void> {
    for (const [index, check] of this.#finalAnswerChecks.entries()) {
      let verdict: unknown;
      try {
        verdict = await check(action.output, { task: run.task, step: run.step, memory: this.memory });
      } catch (error) {
        rethrowIfFatal(error);
        verdict = errorMessage(error);
      }
      if (verdict === true || verdict === undefined) continue;
      const reason =
        typeof verdict === "string" && verdict.trim()
          ? verdict
          : `it failed check #${index + 1} (${check.name || "anonymous"})`;
      action.isFinalAnswer = false;
      action.error = serializeError(new AtriumError("VALIDATION", `final answer rejected: ${reason}`));
      action.observation = truncateMiddle(
        `${action.observation}\n${rejectedAnswerNote(reason)}`,
        this.maxObservationChars,
      );
      return;
    }
  }

  /** A plan (or plan update) in its own span, added to memory with its callbacks run. */
  async #plan(run: AgentRun, system: string, step: number): Promise<PlanningStep> {
    return inSpan(SPAN.planning, { [ATTR.step]: step }, run.spanContext, async (_span, planSpan) => {
      const startedAt = Date.now();
      const started = performance.now();
      const request =
        step === 1 ? initialPlanPrompt(run.task) : updatePlanPrompt(run.task, run.maxSteps - step + 1);
      const messages = [...this.messagesFor(system), { role: "user" as const, content: request }];
      const response = await this.callModel(run, messages, { stopSequences: [END_PLAN] }, planSpan);
      const plan = response.message.content.replace(END_PLAN, "").trim();
      const planning: PlanningStep = {
        type: "planning",
        step,
        plan,
        usage: response.usage,
        timing: { startedAt, durationMs: performance.now() - started },
      };
      this.memory.push(planning);
      run.emit({ type: "planning", step, plan });
      await this.#callStepCallbacks(planning);
      return planning;
    });
  }

  /** Runs the step callbacks, yielding the run's events meanwhile; nothing to wait for without any. */
  async *#stepCallbacksOf(run: AgentRun, step: MemoryStep): AsyncGenerator<AgentEvent> {
    if (this.#stepCallbacks.length) yield* run.during(this.#callStepCallbacks(step));
  }

  /** The conversation so far, as the next model call sees it. */
  protected messagesFor(system: string): Message[] {
    return this.memory.toMessages(system, { keepImagesForSteps: this.keepImagesForSteps });
  }

  async #callStepCallbacks(step: MemoryStep): Promise<void> {
    for (const callback of this.#stepCallbacks) await callback(step, this.memory);
  }
}
