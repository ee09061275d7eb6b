/**
 * Approvals of tool calls: a tool that declares `needsApproval` is not run until someone (a
 * person at a terminal, a web page, an MCP client) says yes. The call waits; a denial reaches the
 * calling code as an error it can catch.
 */

/** A tool call waiting for a yes or a no. */
export interface ApprovalRequest {
  /** The call's id, the same as its `tool-call` event's. */
  readonly toolCallId: string;
  readonly toolName: string;
  /** The input the tool would run with (after its own validation). */
  readonly input: unknown;
}

/** The answer: run the call, or refuse it (the reason is shown to the code and the model). */
export type ApprovalDecision = { approved: true } | { approved: false; reason?: string };

/**
 * What a handler may answer: a decision now, or `{ suspend: true }` to decide later. An agent
 * that can save its runs then ends the run in state "suspended" with a continuation that another
 * process resumes with the decision; anywhere else it refuses the call.
 */
export type ApprovalAnswer = ApprovalDecision | { suspend: true };

/**
 * Decides one request. `signal` aborts when the call no longer waits (the run was aborted or
 * closed, or the wait ran out of time): a prompt should be withdrawn then.
 */
export type ApprovalHandler = (
  request: ApprovalRequest,
  signal: AbortSignal,
) => ApprovalAnswer | Promise<ApprovalAnswer>;

/** Whether a handler's answer asks to suspend the run. */
export function isSuspendAnswer(value: unknown): value is { suspend: true } {
  return typeof value === "object" && value !== null && (value as { suspend?: unknown }).suspend === true;
}

/** What `Tool.needsApproval` may be: a fixed answer, or one that depends on the input. */
export type NeedsApproval<Input = unknown> =
  | boolean
  | ((input: Input, context: { toolCallId: string }) => boolean | Promise<boolean>);

/** The longest a call waits for an answer when nobody names a limit: ten minutes. */
export const DEFAULT_APPROVAL_TIMEOUT_MS = 600_000;

/** Whether a value is an `ApprovalDecision` (it came from a handler the caller wrote). */
export function isApprovalDecision(value: unknown): value is ApprovalDecision {
  if (typeof value !== "object" || value === null) return false;
  const { approved, reason } = value as { approved?: unknown; reason?: unknown };
  if (approved === true) return true;
  return approved === false && (reason === undefined || typeof reason === "string");
}
