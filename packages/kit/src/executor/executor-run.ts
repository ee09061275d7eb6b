import type { ImagePart } from "@atrium/spec";

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
   * Aborts the signal of the run's tool calls when the run ends. Made (or taken from a spare)
   * by the first tool call: building one and aborting it (an event and a DOMException with a
   * stack) costs as much as a trivial step, so neither happens where a run waits for it.
   */
  controller?: AbortController;
  /** Tool calls the guest made in this run. */
  toolCalls: number;
  /** Tool calls whose `execute` has not settled yet. */
  toolsRunning: number;
}

let lastRunId = 0;

export function newExecutorRun(timeoutMs: number): ExecutorRun {
  return {
    id: ++lastRunId,
    timeoutMs,
    images: [],
    giveUp: () => {},
    timers: [],
    toolCalls: 0,
    toolsRunning: 0,
  };
}
