import type { ApprovalHandler, ImagePart, StepJournal } from "@atrium/spec";

/** Why the host stopped a run: decides what `run` throws (or, for a timeout, reports). */
export type HostStop =
  | { type: "abort" }
  | { type: "closed" }
  /** The host's own timer (executors whose sandbox does not keep the deadline itself). */
  | { type: "timeout" }
  /** A tool failed with an error that must end the run (`isFatalError`): `run` throws it. */
  | { type: "fatal"; error: unknown };

/**
 * The host's side of one run of a sandboxed executor, from `run` until it returns. One per
 * executor at a time (runs never overlap); tool calls that arrive for another run id are stale.
 */
export interface ExecutorRun {
  /** Unique in the process, so a late message never reaches another executor's run. */
  readonly id: number;
  readonly timeoutMs: number;
  /** Images the run's tool calls returned, to go out with its result. */
  readonly images: ImagePart[];
  stop?: HostStop;
  /** The sandbox broke its protocol during the run: why. The run reports a crash. */
  broken?: string;
  /** Gives up on the sandbox (it does not answer): ends the wait for its reply. */
  giveUp: () => void;
  readonly timers: ReturnType<typeof setTimeout>[];
  /**
   * The step's clock: its timers (`armTimers`) run while the code runs and stop while a tool call
   * waits for a person (`holds` > 0), so that wait does not count against `timeoutMs`.
   */
  readonly clock: RunClock;
  /**
   * The step's non-deterministic sources (random numbers, the clock), for a run that may be
   * replayed: `record` asks the sandbox to report the values its code used (`recorded`, a JSON
   * value only that sandbox reads), `replay` gives values recorded before, used first and in
   * order before live ones. Both are off for an ordinary run, which pays nothing for this.
   */
  readonly tape: { record: boolean; replay?: unknown; recorded?: unknown };
  /** The run's record and the record it replays (`ExecutorRunOptions.journal`); calls replayed so far. */
  journal?: { record?: StepJournal; replay?: StepJournal; replayed: number };
  /** Who answers the run's tool calls that need approval, and how long each may wait. */
  readonly approval: { handler: ApprovalHandler | undefined; timeoutMs: number };
  /**
   * Aborts the signal of the run's tool calls when the run ends. Made (or taken from a spare)
   * by the first tool call: building one and aborting it (an event and a DOMException with a
   * stack) costs as much as a trivial step, so neither happens where a run waits for it.
   */
  controller?: AbortController;
  /** Tool calls the guest made in this run. */
  toolCalls: number;
  /** The ids of those calls: each names one call. */
  readonly callIds: Set<string>;
  /** Tool calls whose `execute` has not settled yet. */
  toolsRunning: number;
}

export interface RunClock {
  timers: ReturnType<typeof setTimeout>[];
  /** When the timers were last armed (performance.now()). */
  armedAt: number;
  /** Time the code had before the timers were last armed, in ms. */
  spentMs: number;
  /** Approvals being waited for; the clock is stopped while there is one. */
  holds: number;
}

let lastRunId = 0;

export function newExecutorRun(
  timeoutMs: number,
  approval: ExecutorRun["approval"] = { handler: undefined, timeoutMs: 0 },
): ExecutorRun {
  return {
    id: ++lastRunId,
    timeoutMs,
    clock: { timers: [], armedAt: 0, spentMs: 0, holds: 0 },
    tape: { record: false },
    approval,
    images: [],
    giveUp: () => {},
    timers: [],
    toolCalls: 0,
    callIds: new Set(),
    toolsRunning: 0,
  };
}
