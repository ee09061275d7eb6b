import {
  AbortError,
  type Agent,
  type AgentEvent,
  type AgentRunOptions,
  type AgentRunResult,
  type RunState,
  serializeError,
  type Usage,
  ZERO_USAGE,
} from "../src/index.js";

const STEP_USAGE: Usage = { inputTokens: 10, outputTokens: 2 };

/**
 * A correct `Agent` without a model, to prove the contract suite passes: it "thinks" for
 * `steps - 1` steps, then answers with `answer` on the last one. `events` is the one loop both
 * `run` and `stream` consume.
 */
export class ReferenceAgent implements Agent {
  readonly name = "reference";
  readonly description = "Answers with a fixed value after a few steps.";
  readonly maxSteps: number;

  constructor(
    readonly answer: unknown,
    steps = 2,
  ) {
    this.maxSteps = steps;
  }

  async run(task: string, options: AgentRunOptions = {}): Promise<AgentRunResult> {
    const startedAt = new Date().toISOString();
    let end: Extract<AgentEvent, { type: "run-end" }> | undefined;
    let failure: unknown;
    for await (const event of this.events(task, options.signal, (error) => (failure = error))) {
      options.onEvent?.(event);
      if (event.type === "run-end") end = event;
    }
    if (failure !== undefined) throw failure;
    const done = end as Extract<AgentEvent, { type: "run-end" }>;
    return {
      runId: "reference-run",
      output: done.output,
      state: done.state,
      steps: [],
      stepCount: done.steps,
      usage: done.usage,
      timing: { startedAt, durationMs: done.durationMs },
    };
  }

  stream(task: string, options: AgentRunOptions = {}): AsyncIterable<AgentEvent> {
    const onEvent = options.onEvent;
    const events = this.events(task, options.signal, () => {});
    return (async function* () {
      for await (const event of events) {
        onEvent?.(event);
        yield event;
      }
    })();
  }

  async close(): Promise<void> {}

  protected async *events(
    task: string,
    signal: AbortSignal | undefined,
    fail: (error: unknown) => void,
  ): AsyncGenerator<AgentEvent> {
    const started = performance.now();
    yield { type: "run-start", runId: "reference-run", task };
    let state: RunState = "success";
    let output: unknown;
    let steps = 0;
    let usage = ZERO_USAGE;
    try {
      for (let step = 1; step <= this.maxSteps; step++) {
        if (signal?.aborted) throw new AbortError();
        yield { type: "step-start", step };
        await new Promise((resolve) => setTimeout(resolve, 1));
        if (signal?.aborted) throw new AbortError();
        steps = step;
        usage = {
          inputTokens: usage.inputTokens + STEP_USAGE.inputTokens,
          outputTokens: usage.outputTokens + 2,
        };
        yield { type: "observation", step, text: `thought ${step}` };
        yield { type: "step-end", step, durationMs: 1, usage: STEP_USAGE };
      }
      output = this.answer;
      yield { type: "final-answer", step: steps, output };
    } catch (error) {
      state = "aborted";
      fail(error);
      yield { type: "error", ...(steps ? { step: steps } : {}), error: serializeError(error) };
    }
    yield { type: "run-end", state, output, usage, durationMs: performance.now() - started, steps };
  }
}
