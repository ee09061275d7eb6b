import { describe, expect, it } from "vitest";
import { type AgentEvent, type AgentRunOptions, ClosedError } from "../src/index.js";
import { agentContract, describeContract } from "../src/testing/index.js";
import { failingCases } from "./failing-cases.js";
import { ReferenceAgent } from "./reference-agent.js";

const ANSWER = { city: "Lisbon", year: 2024 };
const TASK = "Where and when is the marathon?";

// The suite passes on a correct agent...
describeContract(agentContract(async () => new ReferenceAgent(ANSWER), { task: TASK, output: ANSWER }));

// ...and each broken one fails exactly the cases that check what it broke.
/** Never announces the run's start. */
class HeadlessAgent extends ReferenceAgent {
  protected override async *events(
    task: string,
    signal: AbortSignal | undefined,
    fail: (error: unknown) => void,
  ) {
    for await (const event of super.events(task, signal, fail)) if (event.type !== "run-start") yield event;
  }
}

/** Counts steps from 0. */
class ZeroBasedAgent extends ReferenceAgent {
  protected override async *events(
    task: string,
    signal: AbortSignal | undefined,
    fail: (error: unknown) => void,
  ): AsyncGenerator<AgentEvent> {
    for await (const event of super.events(task, signal, fail)) {
      yield "step" in event && typeof event.step === "number" ? { ...event, step: event.step - 1 } : event;
    }
  }
}

/** Ignores its abort signal. */
class DeafAgent extends ReferenceAgent {
  override run(task: string, { signal: _ignored, ...options }: AgentRunOptions = {}) {
    return super.run(task, options);
  }
  override stream(task: string, { signal: _ignored, ...options }: AgentRunOptions = {}) {
    return super.stream(task, options);
  }
}

/** Throws out of the stream on an abort instead of ending it with a run-end. */
class ThrowingStreamAgent extends ReferenceAgent {
  override stream(task: string, options: AgentRunOptions = {}): AsyncIterable<AgentEvent> {
    const events = super.stream(task, options);
    const signal = options.signal;
    return (async function* () {
      for await (const event of events) {
        if (signal?.aborted) throw signal.reason;
        yield event;
      }
    })();
  }
}

/** Works once: after close it refuses to run again. */
class OneShotAgent extends ReferenceAgent {
  #closed = false;
  override async close(): Promise<void> {
    this.#closed = true;
  }
  override async run(task: string, options?: AgentRunOptions) {
    if (this.#closed) throw new ClosedError("this agent");
    return super.run(task, options);
  }
}

describe("the Agent contract fails broken agents", () => {
  const broken = (make: () => ReferenceAgent) =>
    failingCases(agentContract(async () => make(), { task: TASK, output: ANSWER }));

  it("an agent whose events have no run-start", async () => {
    expect(await broken(() => new HeadlessAgent(ANSWER))).toEqual([
      "onEvent sees one run-start and one run-end carrying the run's result",
      "stream yields one run-start first and one run-end last with the final answer",
      "an aborted signal rejects run with AbortError and ends a stream in state aborted",
      "aborting during a run stops it before another step",
    ]);
  });

  it("an agent that numbers steps from 0", async () => {
    expect(await broken(() => new ZeroBasedAgent(ANSWER))).toEqual([
      "events are keyed on known types, steps numbered from 1 and each opened and closed",
    ]);
  });

  it("an agent that ignores aborts", async () => {
    expect(await broken(() => new DeafAgent(ANSWER))).toEqual([
      "an aborted signal rejects run with AbortError and ends a stream in state aborted",
      "aborting during a run stops it before another step",
    ]);
  });

  it("an agent whose stream throws on abort", async () => {
    expect(await broken(() => new ThrowingStreamAgent(ANSWER))).toEqual([
      "an aborted signal rejects run with AbortError and ends a stream in state aborted",
    ]);
  });

  it("an agent that cannot run after close", async () => {
    expect(await broken(() => new OneShotAgent(ANSWER))).toEqual([
      "close is idempotent and the agent runs again afterwards",
    ]);
  });
});
