import type { ExecutionError, ImagePart } from "@atrium/spec";
import type { QuickJSDeferredPromise } from "quickjs-emscripten";
import { LogBuffer } from "./log-buffer.js";

/** Why a run must stop now, whatever the code does; the interrupt handler enforces it. */
export type StopReason =
  | { type: "final"; json: string | undefined }
  | { type: "timeout" }
  | { type: "abort" }
  | { type: "closed" }
  /** A limit of the run (tool calls, output, jobs): the run ends with this error value. */
  | { type: "limit"; error: ExecutionError }
  /** A fatal host error (from a tool): `run` rejects with it. */
  | { type: "fatal"; error: unknown }
  /** The run is over; leftover jobs are being cut short. */
  | { type: "ended" };

export type ToolOutcome =
  | { ok: true; json: string | undefined }
  | { ok: false; name: string; message: string };

/** A tool call whose promise lives in the sandbox while the host works on it. */
export interface PendingToolCall {
  id: string;
  name: string;
  deferred: QuickJSDeferredPromise;
  outcome?: ToolOutcome;
}

/** Everything one `run` accumulates; dropped when the run ends. */
export class RunState {
  /** Aborted when the run ends for any reason; tools get it as `ToolContext.signal`. */
  readonly controller = new AbortController();
  readonly logs: LogBuffer;
  readonly images: ImagePart[] = [];
  readonly pending = new Set<PendingToolCall>();
  readonly settled: PendingToolCall[] = [];
  stop: StopReason | undefined;
  toolCalls = 0;
  jobs = 0;
  private signalled = false;
  private waiter: (() => void) | undefined;

  constructor(
    readonly index: number,
    readonly fileName: string,
    readonly timeoutMs: number,
    public deadline: number,
    maxOutputChars: number,
  ) {
    this.logs = new LogBuffer(maxOutputChars);
  }

  requestStop(reason: StopReason): void {
    this.stop ??= reason;
    this.wake();
  }

  settle(call: PendingToolCall, outcome: ToolOutcome): void {
    if (call.outcome || !this.pending.has(call)) return;
    call.outcome = outcome;
    this.settled.push(call);
    this.wake();
  }

  /** Resolves at the next `wake` (or at once if one happened since the last wait). */
  nextWake(): Promise<void> {
    if (this.signalled) {
      this.signalled = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      this.waiter = () => {
        this.signalled = false;
        resolve();
      };
    });
  }

  wake(): void {
    this.signalled = true;
    const waiter = this.waiter;
    this.waiter = undefined;
    waiter?.();
  }
}
