import { randomUUID } from "node:crypto";
import {
  AbortError,
  type AgentEvent,
  type ApprovalHandler,
  type ApprovalRequest,
  AtriumError,
  addUsage,
  ConfigError,
  DEFAULT_APPROVAL_TIMEOUT_MS,
  errorMessage,
  isSuspendAnswer,
  type RunState,
  serializeError,
  type Usage,
  ZERO_USAGE,
} from "@atrium/spec";
import type { Context } from "@opentelemetry/api";
import { EventChannel } from "./event-channel.js";
import { type GuardedObserver, guardObserver } from "./event-observer.js";
import type { MemoryStep } from "./memory-steps.js";
import { isAbort } from "./run-abort.js";
import type { RunOptions, RunResult } from "./run-types.js";
import type { ToolScope } from "./tool-runner.js";

/** The state of one run that a step needs: where to emit events, the signal, the span parent. */
export interface RunContext extends ToolScope {
  readonly runId: string;
  readonly task: string;
  /** Stream model output as `model-delta` events (set by `stream`). */
  readonly streaming: boolean;
  /** This run's system prompt: the agent's, then what long-term memory recalled for the task. */
  readonly system: string;
  /**
   * Asks about a tool call that needs approval, between an `approval-requested` event and its
   * `approval-resolved`; undefined when the run has no one to ask (such calls are refused).
   */
  readonly approve: ApprovalHandler | undefined;
  /** The longest one call waits for an approval. */
  readonly approvalTimeoutMs: number;
  readonly maxSteps: number;
  /** Action steps taken so far, and the tokens spent. */
  readonly stepCount: number;
  readonly usage: Usage;
  /** The call the run was suspended on, once a handler answered `{ suspend: true }`. */
  readonly suspended: { request: ApprovalRequest; step: number } | undefined;
  /** The saved run (a signed continuation), set by the step that the suspension stopped. */
  continuation: string | undefined;
  /**
   * Runs when a handler has answered `{ suspend: true }`, before the step is stopped: while the
   * sandbox still waits on the call (a micro-VM is saved whole then).
   */
  beforeSuspend: ((request: ApprovalRequest) => Promise<void>) | undefined;
}

/** How a run ended, as `run()` and `stream()` report it. */
export interface RunOutcome {
  result: RunResult;
  /** The error that ended the run in "error" or "aborted". */
  thrown?: unknown;
  /** What the caller's `onEvent` threw; it stopped the run, and the caller rethrows it. */
  observerFailure?: { error: unknown };
}

/**
 * One agent run in progress (an executor's run is kit's `ExecutorRun`): what steps read (the `RunContext`), where its events go, and the
 * tallies its result is made of. The loop's generator owns one, so the run's state lives here
 * rather than in closure variables.
 */
export class AgentRun implements RunContext {
  readonly runId = randomUUID();
  readonly task: string;
  readonly maxSteps: number;
  readonly streaming: boolean;
  /** The caller's signal, `onEvent` failing and the consumer leaving, combined. */
  readonly signal: AbortSignal;
  step = 0;
  spanContext: Context | undefined;
  system = "";
  readonly approve: ApprovalHandler | undefined;
  readonly approvalTimeoutMs: number;
  /** Whether the agent can save this run when a handler answers `{ suspend: true }`. */
  readonly resumable: boolean;
  /** The call the run was suspended on (its step was stopped), once it has been. */
  suspended: { request: ApprovalRequest; step: number } | undefined;
  /** The saved run, for `resume`; set by the step that was stopped. */
  continuation: string | undefined;
  beforeSuspend: ((request: ApprovalRequest) => Promise<void>) | undefined;

  usage: Usage = ZERO_USAGE;
  output: unknown;
  state: RunState = "max_steps";
  /** Action steps taken. */
  stepCount = 0;
  #failure: { error: unknown } | undefined;
  #result: RunResult | undefined;

  readonly #startedAt = new Date();
  readonly #started = performance.now();
  readonly #observer: GuardedObserver;
  /** Where events wait for the generator's consumer; none when nobody reads them (`run`). */
  readonly #events: EventChannel<AgentEvent> | undefined;
  readonly #stop = new AbortController();

  /** Where this run's steps start in the agent's memory (a continued run has earlier ones). */
  readonly #firstStep: number;

  constructor(
    task: string,
    maxSteps: number,
    firstStep: number,
    options: RunOptions,
    yieldsEvents: boolean,
    resumable = false,
  ) {
    this.resumable = resumable;
    this.task = task;
    this.maxSteps = maxSteps;
    this.#firstStep = firstStep;
    this.#events = yieldsEvents ? new EventChannel() : undefined;
    this.streaming = options.streamModel === true;
    this.#observer = guardObserver(options.onEvent);
    const signals = [this.#stop.signal, this.#observer.signal];
    if (options.signal) signals.push(options.signal);
    this.signal = AbortSignal.any(signals);
    this.approvalTimeoutMs = options.approvalTimeoutMs ?? DEFAULT_APPROVAL_TIMEOUT_MS;
    this.approve = options.onApproval ? this.#announced(options.onApproval) : undefined;
  }

  /**
   * The caller's handler, with the run's events around each request: `approval-requested`
   * before it is asked, `approval-resolved` once it answers or the wait ends without it.
   */
  #announced(handler: ApprovalHandler): ApprovalHandler {
    return async (request, signal) => {
      const step = this.step;
      const { toolCallId: id, toolName: name } = request;
      let resolved = false;
      const resolve = (approved: boolean, reason?: string) => {
        if (resolved) return;
        resolved = true;
        this.emit({ type: "approval-resolved", step, id, name, approved, ...(reason ? { reason } : {}) });
      };
      const withdrawn = () => resolve(false, errorMessage(signal.reason));
      signal.addEventListener("abort", withdrawn, { once: true });
      this.emit({ type: "approval-requested", step, id, name, input: request.input });
      try {
        const answer = await handler(request, signal);
        if (isSuspendAnswer(answer)) {
          // The request stays open: the continuation carries it, and the resumed run answers it.
          resolved = true;
          await this.#suspendFor(request, step);
          return answer;
        }
        resolve(answer?.approved === true, answer?.approved === false ? answer.reason : undefined);
        return answer;
      } catch (error) {
        resolve(false, errorMessage(error));
        throw error;
      } finally {
        signal.removeEventListener("abort", withdrawn);
      }
    };
  }

  /**
   * Ends the run in "suspended": its step is stopped (an abort, which the step that ran the code
   * turns into a continuation) while `request` waits for an answer from a resumed run.
   */
  async #suspendFor(request: ApprovalRequest, step: number): Promise<void> {
    if (this.suspended) return;
    if (!this.resumable) {
      // Fatal: the executor ends the step and the run with it.
      throw new ConfigError(
        "onApproval answered { suspend: true }, but this agent cannot save its runs; a CodeAgent can, given `resumable: { keyFile }` (or { key })",
      );
    }
    this.suspended = { request, step };
    try {
      await this.beforeSuspend?.(request);
    } catch (error) {
      this.suspended = undefined;
      throw new AtriumError("EXECUTION", `the run could not be saved: ${errorMessage(error)}`, {
        isFatal: true,
      });
    }
    this.#stop.abort(new AbortError("the run was suspended to wait for an approval"));
  }

  /** Sends an event to `onEvent` now and queues it for the generator's consumer. */
  readonly emit = (event: AgentEvent): void => {
    this.#observer.emit(event);
    this.#events?.push(event);
  };

  /** Yields the events queued so far. */
  *drain(): Generator<AgentEvent, void, undefined> {
    if (this.#events) yield* this.#events.drain();
  }

  /**
   * Yields the run's events while `work` (a step, a model call) runs and returns its result. A
   * consumer that stops reading aborts the run, and `work` is awaited before the loop goes on.
   */
  async *during<R>(work: Promise<R>): AsyncGenerator<AgentEvent, R, undefined> {
    if (!this.#events) return await work;
    return yield* this.#events.during(work, () => this.stopReading());
  }

  /** Aborts the run because the consumer of its events has gone. */
  stopReading(): void {
    this.#stop.abort(new AbortError("the stream's consumer stopped reading"));
  }

  addUsage(usage: Usage): void {
    this.usage = addUsage(this.usage, usage);
  }

  /** Ends the run in "aborted" or "error" with `error`, and emits the `error` event. */
  fail(error: unknown): void {
    if (this.suspended && this.continuation !== undefined) {
      // Not a failure: the run waits for an answer, saved in its continuation.
      this.state = "suspended";
      return;
    }
    const aborted = isAbort(error, this.signal);
    // An abort with an AbortError as its reason (e.g. onEvent threw) is reported by that reason.
    const thrown = aborted && this.signal.reason instanceof AbortError ? this.signal.reason : error;
    this.#failure = { error: thrown };
    this.state = aborted ? "aborted" : "error";
    this.emit({ type: "error", ...(this.step ? { step: this.step } : {}), error: serializeError(thrown) });
  }

  /** Emits `run-end` and fixes the result; `memory` is every step of the agent's memory. */
  end(memory: readonly MemoryStep[]): void {
    const durationMs = performance.now() - this.#started;
    const { output, state, usage, stepCount } = this;
    this.emit({ type: "run-end", state, output, usage, durationMs, steps: stepCount });
    const failure = this.#failure;
    this.#result = {
      runId: this.runId,
      output,
      state,
      steps: memory.slice(this.#firstStep),
      stepCount,
      usage,
      timing: { startedAt: this.#startedAt.toISOString(), durationMs },
      ...(failure ? { error: serializeError(failure.error) } : {}),
      ...(this.continuation === undefined ? {} : { continuation: this.continuation }),
    };
  }

  /** The result, the error that ended the run, and what `onEvent` threw; after `end`. */
  outcome(): RunOutcome {
    if (!this.#result) throw new Error("AgentRun.outcome() before end()");
    const outcome: RunOutcome = { result: this.#result };
    if (this.#failure) outcome.thrown = this.#failure.error;
    if (this.#observer.failure) outcome.observerFailure = this.#observer.failure;
    return outcome;
  }
}
