import assert from "node:assert/strict";
import type { Agent } from "../agent.js";
import type { AgentEvent, AgentEventType } from "../agent-event.js";
import { type Contract, type ContractCase, within, withSubject } from "./contract.js";

export interface AgentContractOptions {
  /** The task every case runs. */
  task: string;
  /** The final answer the factory's agent gives for `task` (compared with `deepEqual`). */
  output: unknown;
  /** Deadline of one run (default 20 s). */
  timeoutMs?: number;
}

const EVENT_TYPES: ReadonlySet<AgentEventType> = new Set<AgentEventType>([
  "run-start",
  "step-start",
  "planning",
  "model-delta",
  "model-output",
  "code",
  "tool-call",
  "tool-progress",
  "tool-result",
  "observation",
  "step-end",
  "final-answer",
  "error",
  "run-end",
]);

async function collect(events: AsyncIterable<AgentEvent>): Promise<AgentEvent[]> {
  const all: AgentEvent[] = [];
  for await (const event of events) all.push(event);
  return all;
}

/** Exactly one run-start, first, and one run-end, last; returns the run-end. */
function assertBracketed(events: readonly AgentEvent[], task: string) {
  assert.ok(events.length >= 2, `expected at least run-start and run-end, got ${events.length} events`);
  assert.equal(events.filter((event) => event.type === "run-start").length, 1, "one run-start");
  assert.equal(events.filter((event) => event.type === "run-end").length, 1, "one run-end");
  const first = events[0]!;
  const last = events.at(-1)!;
  assert.equal(first.type, "run-start", "the first event is run-start");
  assert.equal(last.type, "run-end", "the last event is run-end");
  if (first.type === "run-start") assert.equal(first.task, task);
  return last as Extract<AgentEvent, { type: "run-end" }>;
}

const isAbortError = (error: unknown) => {
  assert.ok(error instanceof Error, `expected an Error, got ${String(error)}`);
  assert.equal(error.name, "AbortError");
  return true;
};

/**
 * The behaviour every `Agent` promises: `run` resolves with the final answer and state
 * "success"; `onEvent` and `stream` see one `run-start` first and one `run-end` last carrying
 * the same answer; events are keyed on known types with step numbers from 1, each step opened
 * and closed; an abort (before or during the run) rejects `run` with `AbortError` and ends a
 * stream with state "aborted"; `close` is idempotent and the agent runs again afterwards.
 * The factory must return a new agent each time, one that answers `task` with `output`.
 */
export function agentContract(factory: () => Promise<Agent>, options: AgentContractOptions): Contract<Agent> {
  const { task, output } = options;
  const timeoutMs = options.timeoutMs ?? 20_000;
  const withAgent = (body: (agent: Agent) => Promise<void>) => (make: () => Promise<Agent>) =>
    withSubject(make, (agent) => agent.close(), body);
  const streamed = (agent: Agent, signal?: AbortSignal) =>
    within(timeoutMs, "the stream", collect(agent.stream(task, signal ? { signal } : {})));

  const cases: ContractCase<Agent>[] = [
    {
      name: "run resolves with the final answer and state success",
      run: withAgent(async (agent) => {
        const result = await within(timeoutMs, "run", agent.run(task));
        assert.deepEqual(result.output, output);
        assert.equal(result.state, "success");
        assert.equal(typeof result.runId, "string");
        assert.ok(result.runId.length > 0, "runId is empty");
        assert.ok(result.stepCount >= 1, `stepCount ${result.stepCount}`);
        assert.ok(result.usage.inputTokens >= 0 && result.usage.outputTokens >= 0, "usage is negative");
        assert.ok(result.timing.durationMs >= 0, "durationMs is negative");
        assert.ok(!Number.isNaN(Date.parse(result.timing.startedAt)), "startedAt is not an ISO time");
        assert.equal(result.error, undefined);
      }),
    },
    {
      name: "onEvent sees one run-start and one run-end carrying the run's result",
      run: withAgent(async (agent) => {
        const events: AgentEvent[] = [];
        const result = await within(
          timeoutMs,
          "run",
          agent.run(task, { onEvent: (event) => events.push(event) }),
        );
        const end = assertBracketed(events, task);
        assert.equal(end.state, "success");
        assert.deepEqual(end.output, result.output);
        assert.equal(end.steps, result.stepCount);
      }),
    },
    {
      name: "stream yields one run-start first and one run-end last with the final answer",
      run: withAgent(async (agent) => {
        const end = assertBracketed(await streamed(agent), task);
        assert.equal(end.state, "success");
        assert.deepEqual(end.output, output);
      }),
    },
    {
      name: "events are keyed on known types, steps numbered from 1 and each opened and closed",
      run: withAgent(async (agent) => {
        const events = await streamed(agent);
        const open: number[] = [];
        let lastStarted = 0;
        for (const event of events) {
          assert.ok(EVENT_TYPES.has(event.type), `unknown event type ${JSON.stringify(event.type)}`);
          if ("step" in event && event.step !== undefined) {
            assert.ok(
              Number.isInteger(event.step) && event.step >= 1,
              `${event.type} has step ${event.step}`,
            );
          }
          if (event.type === "step-start") {
            assert.equal(event.step, lastStarted + 1, "steps start in order, one at a time");
            lastStarted = event.step;
            open.push(event.step);
          }
          if (event.type === "step-end")
            assert.equal(open.pop(), event.step, `step-end ${event.step} unopened`);
        }
        assert.deepEqual(open, [], "a step was never closed");
        assert.ok(lastStarted >= 1, "no step was taken");
      }),
    },
    {
      name: "an aborted signal rejects run with AbortError and ends a stream in state aborted",
      run: withAgent(async (agent) => {
        const controller = new AbortController();
        controller.abort();
        await assert.rejects(
          within(timeoutMs, "run", agent.run(task, { signal: controller.signal })),
          isAbortError,
        );
        const end = assertBracketed(await streamed(agent, controller.signal), task);
        assert.equal(end.state, "aborted");
      }),
    },
    {
      name: "aborting during a run stops it before another step",
      run: withAgent(async (agent) => {
        const controller = new AbortController();
        const events: AgentEvent[] = [];
        const onEvent = (event: AgentEvent) => {
          events.push(event);
          if (event.type === "step-start") controller.abort();
        };
        await assert.rejects(
          within(timeoutMs, "run", agent.run(task, { signal: controller.signal, onEvent })),
          isAbortError,
        );
        assert.equal(events.filter((event) => event.type === "step-start").length, 1, "it took another step");
        assert.ok(!events.some((event) => event.type === "final-answer"), "it still answered");
        assert.equal(assertBracketed(events, task).state, "aborted");
      }),
    },
    {
      name: "close is idempotent and the agent runs again afterwards",
      run: withAgent(async (agent) => {
        await within(timeoutMs, "run", agent.run(task));
        await agent.close();
        await agent.close();
        const again = await within(timeoutMs, "run after close", agent.run(task));
        assert.equal(again.state, "success");
      }),
    },
  ];
  return { name: "Agent contract", factory, cases };
}
