import { SandboxProtocolError } from "@atrium/kit";
import { EXECUTION_ERROR_KINDS, type ExecutionError } from "@atrium/spec";
import type { QuickJsLimits } from "../../limits.js";
import { tapeProblem } from "./run-tape.js";
import type { SandboxMemory, SessionRunResult, WorkerToHost } from "./worker-protocol.js";

/**
 * Checks of what the sandbox worker sends the host. The worker runs guest code, so its messages
 * are not trusted: every field must have its type, its allowed values and a bounded size. A
 * message that fails (`SandboxProtocolError`) is a broken sandbox (the executor reports it as
 * crashed and replaces the worker), never a value handed on.
 */

const KINDS: ReadonlySet<string> = new Set(EXECUTION_ERROR_KINDS);
/** Room for the wording the worker adds around bounded parts (cut markers, limits named). */
const WORDING_CHARS = 1_000;

type Limits = Pick<QuickJsLimits, "maxTransferChars" | "maxOutputChars" | "maxErrorChars" | "maxCodeChars">;

/** The result of a `run` request, checked; `taped`: the request asked for the step's tape. */
export function checkRunResult(value: unknown, limits: Limits, taped = false): SessionRunResult {
  const r = record(value, "run result");
  const outputJson = r.outputJson;
  if (outputJson !== undefined) text(outputJson, "outputJson", limits.maxTransferChars);
  flag(r.isFinalAnswer, "isFinalAnswer");
  flag(r.stoppedByHost, "stoppedByHost");
  text(r.logs, "logs", limits.maxOutputChars + WORDING_CHARS);
  if (typeof r.durationMs !== "number" || !(r.durationMs >= 0))
    throw new SandboxProtocolError("run result: durationMs is not a duration");
  if (r.error !== undefined) checkExecutionError(r.error, limits);
  if (taped || r.tape !== undefined) checkTape(r.tape, taped);
  return value as SessionRunResult;
}

/** The result of a `memory` request, checked. */
export function checkMemory(value: unknown): SandboxMemory {
  const r = record(value, "memory");
  if (!Number.isSafeInteger(r.usedBytes) || !Number.isSafeInteger(r.wasmBytes))
    throw new SandboxProtocolError("memory: byte counts are not integers");
  return value as SandboxMemory;
}

/** A tool call, checked (the tool's name is checked against the tools by the caller). */
export function checkToolCall(message: Extract<WorkerToHost, { type: "tool-call" }>, limits: Limits): void {
  if (!Number.isSafeInteger(message.runId))
    throw new SandboxProtocolError("tool call: runId is not an integer");
  text(message.callId, "tool call id", 100);
  text(message.name, "tool name", 200);
  text(message.json, "tool input", limits.maxTransferChars);
}

/** A step's tape: there exactly when asked for, and bounded (`MAX_TAPE_VALUES`). */
function checkTape(value: unknown, taped: boolean): void {
  if (!taped) throw new SandboxProtocolError("run result: a tape for a step that recorded none");
  const problem = tapeProblem(value);
  if (problem) throw new SandboxProtocolError(`run result: the step's tape ${problem}`);
}

function checkExecutionError(value: unknown, limits: Limits): ExecutionError {
  const e = record(value, "error");
  if (typeof e.kind !== "string" || !KINDS.has(e.kind)) throw new SandboxProtocolError("error: unknown kind");
  text(e.name, "error name", WORDING_CHARS);
  text(e.message, "error message", limits.maxErrorChars + WORDING_CHARS);
  if (e.line !== undefined && !(Number.isSafeInteger(e.line) && (e.line as number) >= 1))
    throw new SandboxProtocolError("error: line is not a positive integer");
  if (e.lineText !== undefined) text(e.lineText, "error lineText", limits.maxCodeChars);
  if (e.stateLost !== undefined) flag(e.stateLost, "stateLost");
  return value as ExecutionError;
}

function record(value: unknown, what: string): Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value))
    throw new SandboxProtocolError(`${what} is not an object`);
  return value as Record<string, unknown>;
}

function text(value: unknown, what: string, maxChars: number): void {
  if (typeof value !== "string") throw new SandboxProtocolError(`${what} is not a string`);
  if (value.length > maxChars)
    throw new SandboxProtocolError(`${what} is ${value.length} characters; at most ${maxChars} may cross`);
}

function flag(value: unknown, what: string): void {
  if (typeof value !== "boolean") throw new SandboxProtocolError(`${what} is not a boolean`);
}
