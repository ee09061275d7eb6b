import { randomUUID } from "node:crypto";
import {
  AbortError,
  type AgentEvent,
  AtriumError,
  addUsage,
  ConfigError,
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
import { DEFAULT_KEEP_IMAGES_FOR_STEPS, DEFAULT_MAX_STEPS, MAX_OBSERVATION_CHARS } from "../limits.js";
import { ATTR, inSpan, SPAN } from "../observability/tracing.js";
import {
  closingPrompt,
  END_PLAN,
  initialPlanPrompt,
  rejectedAnswerNote,
  updatePlanPrompt,
} from "../prompts/loop-prompts.js";
import { AgentMemory } from "./agent-memory.js";
import { checkTools, describeVariables, nonNegativeInteger, positiveInteger } from "./agent-options.js";
import { EventChannel } from "./event-channel.js";
import { guardObserver } from "./event-observer.js";
import { loadImages } from "./load-images.js";
import {
  type ManagedAgentInput,
  type ManagedAgentToolOptions,
  managedAgentTool,
} from "./managed-agent-tool.js";
import type { ActionStep, FinalAnswerStep, MemoryStep, PlanningStep } from "./memory-steps.js";
import { isAbort, throwIfAborted } from "./run-abort.js";
import type { AgentOptions, FinalAnswerCheck, RunOptions, RunResult, StepCallback } from "./run-types.js";
import { imagePartOf } from "./stored-image.js";
import { instrumentTool, type ToolScope } from "./tool-runner.js";
import { truncateMiddle } from "./truncate.js";

/** The state of one run that a step needs: where to emit events, the signal, the span parent. */
export interface RunContext extends ToolScope {
  readonly runId: string;
  readonly task: string;
  /** Stream model output as `model-delta` events (set by `stream`). */
  readonly streaming: boolean;
}

/** The run's signal: the caller's, if any, combined with the agent's own. */
function withSignal(given: AbortSignal | undefined, own: AbortSignal): AbortSignal {
  return given ? AbortSignal.any([given, own]) : own;
}

/**
 * The loop every agent shares: task → optional planning → action steps until a final answer
 * or `maxSteps` (then one closing call that must answer), with events, spans, step callbacks,
 * final-answer checks, aborts and resumable memory. Subclasses supply the system prompt and
 * one action step.
 */
export abstract class MultiStepAgent {
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
    this.maxSteps = positiveInteger("maxSteps", options.maxSteps ?? DEFAULT_MAX_STEPS);
    this.planningInterval =
      options.planningInterval === undefined
        ? undefined
        : positiveInteger("planningInterval", options.planningInterval);
    this.instructions = options.instructions;
    this.keepImagesForSteps = nonNegativeInteger(
      "keepImagesForSteps",
      options.keepImagesForSteps ?? DEFAULT_KEEP_IMAGES_FOR_STEPS,
    );
    this.maxObservationChars = positiveInteger(
      "maxObservationChars",
      options.maxObservationChars ?? MAX_OBSERVATION_CHARS,
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

  /**
   * Runs the task to its end and returns the result. An exception thrown by `onEvent` stops the
   * run (as an abort) and `run` rejects with that exception, whatever `throwOnError` says.
   */
  async run(task: string, options: RunOptions = {}): Promise<RunResult> {
    const observer = guardObserver(options.onEvent);
    const { result, thrown } = await this.#execute(
      task,
      { ...options, signal: withSignal(options.signal, observer.signal) },
      observer.emit,
      options.streamModel === true,
    );
    if (observer.failure) throw observer.failure.error;
    if (thrown !== undefined && options.throwOnError !== false) throw thrown;
    return result;
  }

  /**
   * Runs the task and yields its events as they happen, model output token by token. Leaving
   * the loop early (`break`) aborts the run. An exception thrown by `onEvent` stops the run (as
   * an abort): the stream yields the remaining events (`error`, `run-end`) and then throws it.
   */
  async *stream(task: string, options: RunOptions = {}): AsyncGenerator<AgentEvent, void, undefined> {
    const channel = new EventChannel<AgentEvent>();
    const observer = guardObserver(options.onEvent);
    const controller = new AbortController();
    const signal = withSignal(options.signal, AbortSignal.any([controller.signal, observer.signal]));
    const emit = (event: AgentEvent) => {
      channel.push(event);
      observer.emit(event);
    };
    const done = this.#execute(task, { ...options, signal }, emit, true).then(
      () => channel.close(observer.failure?.error),
      (error: unknown) => channel.close(error),
    );
    try {
      yield* channel;
    } finally {
      controller.abort(new AbortError("the stream's consumer stopped reading"));
      await done;
    }
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

  async #execute(
    task: string,
    options: RunOptions,
    emit: (event: AgentEvent) => void,
    streaming: boolean,
  ): Promise<{ result: RunResult; thrown?: unknown }> {
    if (typeof task !== "string" || task.trim() === "")
      throw new ConfigError("run(task): task must be a non-empty string");
    if (this.#running) {
      throw new ConfigError(
        "this agent is already running; use agent.asTool() or create another agent for concurrent runs",
      );
    }
    this.#running = true;
    try {
      const maxSteps = positiveInteger("maxSteps", options.maxSteps ?? this.maxSteps);
      const images = await loadImages(options.images);
      const signal = options.signal ?? new AbortController().signal;
      if (options.memory !== undefined) {
        this.memory =
          options.memory instanceof AgentMemory ? options.memory : AgentMemory.fromJSON(options.memory);
        await this.resetState();
      } else if (options.reset !== false) {
        this.memory = new AgentMemory();
        await this.resetState();
      }
      const firstNewStep = this.memory.steps.length;
      const runId = randomUUID();
      const startedAt = new Date();
      const started = performance.now();
      const run: RunContext = { runId, task, streaming, emit, signal, step: 0, spanContext: undefined };
      this.#scope = run;

      let usage: Usage = ZERO_USAGE;
      let output: unknown;
      let state: RunResult["state"] = "max_steps";
      let thrown: unknown;
      let steps = 0;
      const attributes = { [ATTR.runId]: runId, ...(this.name ? { [ATTR.agentName]: this.name } : {}) };
      await inSpan(SPAN.run, attributes, undefined, async (span, runSpan) => {
        emit({ type: "run-start", runId, task });
        try {
          throwIfAborted(signal);
          await this.prepareRun(options.variables);
          const system = this.systemPrompt();
          const note = options.variables ? describeVariables(options.variables) : "";
          this.#push({
            type: "task",
            task: note ? `${task}\n\n${note}` : task,
            ...(images.length ? { images } : {}),
          });
          for (let step = 1; step <= maxSteps; step++) {
            throwIfAborted(signal);
            run.step = step;
            run.spanContext = runSpan;
            if (this.planningInterval && (step - 1) % this.planningInterval === 0) {
              const plan = await this.#plan(run, system, step, maxSteps);
              usage = addUsage(usage, plan.usage);
            }
            emit({ type: "step-start", step });
            const action = await this.#actionStepInSpan(run, runSpan);
            steps = step;
            usage = addUsage(usage, action.usage);
            this.#push(action);
            emit({
              type: "observation",
              step,
              text: action.observation,
              ...(action.images?.length ? { images: action.images.map(imagePartOf) } : {}),
            });
            await this.#callStepCallbacks(action);
            emit({
              type: "step-end",
              step,
              durationMs: action.timing.durationMs,
              usage: action.usage,
              ...(action.error ? { error: action.error } : {}),
            });
            if (action.isFinalAnswer) {
              output = action.output;
              state = "success";
              await this.#finish({
                type: "final-answer",
                output,
                source: "final_answer",
                usage: ZERO_USAGE,
                timing: { startedAt: Date.now(), durationMs: 0 },
              });
              emit({ type: "final-answer", step, output });
              break;
            }
          }
          if (state === "max_steps") {
            throwIfAborted(signal);
            run.step = maxSteps + 1;
            run.spanContext = runSpan;
            const closing = await this.#closingCall(run, system, task);
            usage = addUsage(usage, closing.usage);
            output = closing.output;
            emit({ type: "final-answer", step: run.step, output });
          }
        } catch (error) {
          const aborted = isAbort(error, signal);
          // An abort with an AbortError as its reason (e.g. onEvent threw) is reported by that reason.
          thrown = aborted && signal.reason instanceof AbortError ? signal.reason : error;
          state = aborted ? "aborted" : "error";
          emit({ type: "error", ...(run.step ? { step: run.step } : {}), error: serializeError(thrown) });
        }
        span.setAttributes({
          [ATTR.runState]: state,
          [ATTR.runSteps]: steps,
          [ATTR.inputTokens]: usage.inputTokens,
          [ATTR.outputTokens]: usage.outputTokens,
        });
      });
      const durationMs = performance.now() - started;
      emit({ type: "run-end", state, output, usage, durationMs, steps });
      const result: RunResult = {
        runId,
        output,
        state,
        steps: this.memory.steps.slice(firstNewStep),
        stepCount: steps,
        usage,
        timing: { startedAt: startedAt.toISOString(), durationMs },
        ...(thrown === undefined ? {} : { error: serializeError(thrown) }),
      };
      return thrown === undefined ? { result } : { result, thrown };
    } finally {
      this.#scope = undefined;
      this.#running = false;
    }
  }

  async #actionStepInSpan(run: RunContext, runSpan: Context): Promise<ActionStep> {
    return inSpan(SPAN.step, { [ATTR.step]: run.step }, runSpan, async (span, stepSpan) => {
      run.spanContext = stepSpan;
      const action = await this.actionStep(run);
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
        verdict = error instanceof Error ? error.message : String(error);
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

  async #plan(run: RunContext, system: string, step: number, maxSteps: number): Promise<PlanningStep> {
    return inSpan(SPAN.planning, { [ATTR.step]: step }, run.spanContext, async (_span, planSpan) => {
      const startedAt = Date.now();
      const started = performance.now();
      const request =
        step === 1 ? initialPlanPrompt(run.task) : updatePlanPrompt(run.task, maxSteps - step + 1);
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
      this.#push(planning);
      run.emit({ type: "planning", step, plan });
      await this.#callStepCallbacks(planning);
      return planning;
    });
  }

  async #closingCall(run: RunContext, system: string, task: string): Promise<FinalAnswerStep> {
    const startedAt = Date.now();
    const started = performance.now();
    const messages = [...this.messagesFor(system), { role: "user" as const, content: closingPrompt(task) }];
    const response = await this.callModel(run, messages, {});
    const final: FinalAnswerStep = {
      type: "final-answer",
      output: response.message.content.trim(),
      source: "max_steps",
      modelOutput: response.message.content,
      usage: response.usage,
      timing: { startedAt, durationMs: performance.now() - started },
    };
    await this.#finish(final);
    return final;
  }

  /** The conversation so far, as the next model call sees it. */
  protected messagesFor(system: string): Message[] {
    return this.memory.toMessages(system, { keepImagesForSteps: this.keepImagesForSteps });
  }

  #push(step: MemoryStep): void {
    this.memory.push(step);
  }

  async #finish(step: FinalAnswerStep): Promise<void> {
    this.#push(step);
    await this.#callStepCallbacks(step);
  }

  async #callStepCallbacks(step: MemoryStep): Promise<void> {
    for (const callback of this.#stepCallbacks) await callback(step, this.memory);
  }
}
