import { OutputBuffer } from "@atrium/kit";
import type { ExecutionError, ExecutionErrorKind } from "@atrium/spec";
import type { QuickJSDeferredPromise } from "quickjs-emscripten";
import { executionError } from "../execution-errors.js";
import type { ToolOutcome } from "../worker-protocol.js";

/** Why a run must stop now, whatever the code does; the interrupt handler enforces it. */
export type StopReason =
  | { type: "final"; json: string | undefined }
  | { type: "timeout" }
  /** The host asked (abort, close, a fatal tool error); it knows why. */
  | { type: "host" }
  /** A limit of the run (tool calls, output, jobs): the run ends with this error value. */
  | { type: "limit"; error: ExecutionError }
  /** The run is over; leftover jobs are being cut short. */
  | { type: "ended" };

/** A tool call whose promise lives in the sandbox while the host works on it. */
export interface PendingToolCall {
  id: string;
  name: string;
  deferred: QuickJSDeferredPromise;
  outcome?: ToolOutcome;
}

/**
 * The sandbox's side of one `run` (the host's side is kit's `ExecutorRun`): what the step
 * accumulates (output, pending tool calls, counts) and why it must stop; dropped when it ends.
 */
export class SessionRun {
  readonly output: OutputBuffer;
  readonly pending = new Set<PendingToolCall>();
  readonly settled: PendingToolCall[] = [];
  stop: StopReason | undefined;
  toolCalls = 0;
  jobs = 0;
  /** Characters that crossed the boundary in this run (see `maxStepTransferChars`). */
  crossedChars = 0;

  constructor(
    readonly id: number,
    readonly fileName: string,
    readonly timeoutMs: number,
    public deadline: number,
    maxOutputChars: number,
  ) {
    this.output = new OutputBuffer(maxOutputChars);
  }

  /**
   * A tool call of the run waits for a person's answer. The deadline still holds while the code
   * runs (other calls' results, promise jobs); only the time the sandbox then waits with nothing
   * to run is added back to it (`evaluateStep`), so a person's time is not the code's and the
   * code gets none of it to compute with.
   */
  held = false;

  holdClock(held: boolean): void {
    this.held = held;
  }

  requestStop(reason: StopReason): void {
    this.stop ??= reason;
  }

  /** A limit of the run was reached: it stops, and ends with this error (the failing line from `code`). */
  stopAtLimit(kind: ExecutionErrorKind, name: string, message: string, code = ""): void {
    this.requestStop({ type: "limit", error: executionError(kind, name, message, code) });
  }

  settle(call: PendingToolCall, outcome: ToolOutcome): void {
    if (call.outcome || !this.pending.has(call)) return;
    call.outcome = outcome;
    this.settled.push(call);
  }
}
