import type { ExecutionError } from "@atrium/spec";
import {
  QUICKJS_MAX_CODE_CHARS,
  QUICKJS_MAX_JOBS,
  QUICKJS_MAX_OUTPUT_CHARS,
  QUICKJS_MAX_PRINTED_CHARS,
  QUICKJS_MAX_STACK_BYTES,
  QUICKJS_MAX_TOOL_CALLS,
  QUICKJS_MAX_TRANSFER_CHARS,
  QUICKJS_MEMORY_LIMIT_BYTES,
} from "../../limits.js";

/**
 * Messages between `QuickJsExecutor` (main thread) and its sandbox worker. QuickJS runs in a
 * worker thread so that synchronous guest code (an infinite loop) never blocks the host's event
 * loop: aborts, timers and other agents keep running, and the host can always stop the guest
 * through a shared flag the interrupt handler reads, or by terminating the worker.
 */

/** Limits the session in the worker enforces. */
export interface SessionLimits {
  memoryLimitBytes: number;
  maxStackBytes: number;
  maxOutputChars: number;
  maxPrintedChars: number;
  maxToolCalls: number;
  maxJobs: number;
  maxCodeChars: number;
  maxTransferChars: number;
}

/** The limits of a sandbox no option changed (see limits.ts). */
export const DEFAULT_SESSION_LIMITS: Readonly<SessionLimits> = Object.freeze({
  memoryLimitBytes: QUICKJS_MEMORY_LIMIT_BYTES,
  maxStackBytes: QUICKJS_MAX_STACK_BYTES,
  maxOutputChars: QUICKJS_MAX_OUTPUT_CHARS,
  maxPrintedChars: QUICKJS_MAX_PRINTED_CHARS,
  maxToolCalls: QUICKJS_MAX_TOOL_CALLS,
  maxJobs: QUICKJS_MAX_JOBS,
  maxCodeChars: QUICKJS_MAX_CODE_CHARS,
  maxTransferChars: QUICKJS_MAX_TRANSFER_CHARS,
});

export type ToolOutcome =
  | { ok: true; json: string | undefined }
  | { ok: false; name: string; message: string };

export type HostToWorker =
  | { type: "init"; id: number; limits: SessionLimits }
  | { type: "run"; id: number; runId: number; code: string; timeoutMs: number }
  | { type: "set-tools"; id: number; names: string[] }
  | { type: "set-variables"; id: number; entries: [name: string, json: string | undefined][] }
  | { type: "reset"; id: number }
  | { type: "memory"; id: number }
  /** Drop every state and get ready to serve a new executor. */
  | { type: "recycle"; id: number }
  | { type: "tool-result"; runId: number; callId: string; outcome: ToolOutcome }
  /** Stop the run now (also signalled through the shared flag while guest code is running). */
  | { type: "stop"; runId: number };

/** Memory of a sandbox: what QuickJS has allocated, and the wasm instance's linear memory. */
export interface SandboxMemory {
  usedBytes: number;
  wasmBytes: number;
}

/** What a run produced, before the host adds images and maps host stops to exceptions. */
export interface SessionRunResult {
  outputJson: string | undefined;
  isFinalAnswer: boolean;
  logs: string;
  error?: ExecutionError;
  /** The host stopped the run (abort, close, a fatal tool error): the host knows why. */
  stoppedByHost: boolean;
  durationMs: number;
}

export type WorkerToHost =
  | { type: "ready" }
  | { type: "reply"; id: number; ok: true; value?: SessionRunResult | SandboxMemory }
  | { type: "reply"; id: number; ok: false; error: { name: string; message: string } }
  | { type: "tool-call"; runId: number; callId: string; name: string; json: string };

/** `Int32Array` slot of the shared stop flag: non-zero = the host asks the current run to stop. */
export const STOP_FLAG = 0;
