import { EXECUTION_ERROR_KINDS } from "@atrium/spec";
import type { ToolCallMessage } from "../python-sandbox-client.js";
import type { HarnessRunResult } from "../worker-protocol.js";

/**
 * Shape checks for what the OS-sandboxed process sends the host. The process may be running
 * code that escaped the interpreter, so its messages are input like any other: a value of the
 * wrong shape is refused (and the sandbox killed) instead of reaching the executor's logic.
 */

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

const ERROR_KINDS: ReadonlySet<string> = new Set(EXECUTION_ERROR_KINDS);

export function asToolCallMessage(value: unknown): ToolCallMessage | undefined {
  if (!isRecord(value) || value.type !== "tool-call") return undefined;
  const { runId, callId, name, json } = value;
  if (!Number.isSafeInteger(runId) || !Number.isSafeInteger(callId)) return undefined;
  if (typeof name !== "string" || typeof json !== "string") return undefined;
  return { type: "tool-call", runId: runId as number, callId: callId as number, name, json };
}

export function asHarnessRunResult(value: unknown): HarnessRunResult | undefined {
  if (!isRecord(value)) return undefined;
  const { outputJson, isFinalAnswer, logs, interrupted, error } = value;
  if (outputJson !== null && typeof outputJson !== "string") return undefined;
  if (typeof isFinalAnswer !== "boolean" || typeof logs !== "string" || typeof interrupted !== "boolean") {
    return undefined;
  }
  if (error !== undefined) {
    if (!isRecord(error) || typeof error.kind !== "string" || !ERROR_KINDS.has(error.kind)) return undefined;
    if (typeof error.name !== "string" || typeof error.message !== "string") return undefined;
    if (error.line !== undefined && !Number.isSafeInteger(error.line)) return undefined;
    if (error.lineText !== undefined && typeof error.lineText !== "string") return undefined;
  }
  return value as unknown as HarnessRunResult;
}
