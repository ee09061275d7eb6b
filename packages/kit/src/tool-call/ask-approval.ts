import {
  AbortError,
  type ApprovalDecision,
  type ApprovalHandler,
  type ApprovalRequest,
  isApprovalDecision,
  isFatalError,
  isSuspendAnswer,
  type Tool,
} from "@atrium/spec";
import { describeThrown } from "../values/describe-thrown.js";

/** Why a call that needs approval was refused when nobody could be asked. */
export const NO_APPROVER_REASON =
  "it needs approval and no one was asked (give the run an onApproval handler, or run the CLI with --approve)";

/** What the calling code (and the model) is told when a call was not approved. */
export function notApprovedMessage(toolName: string, reason: string | undefined): string {
  return `Tool "${toolName}" was not approved${reason ? `: ${reason}` : ""}`;
}

/** Whether this call waits for an approval: the tool's `needsApproval`, asked with the checked input. */
export async function toolNeedsApproval(tool: Tool, input: unknown, toolCallId: string): Promise<boolean> {
  const needs = tool.needsApproval;
  if (typeof needs === "function") return (await needs(input, { toolCallId })) === true;
  return needs === true;
}

export interface AskApprovalOptions {
  /** The longest the wait lasts; then the call is refused and the handler's signal aborts. */
  timeoutMs: number;
  /** Aborts the wait (the run ended): `askApproval` rejects with its reason. */
  signal: AbortSignal;
}

/**
 * Asks `handler` about one call, the same way wherever a tool needs approval (sandboxed code,
 * a native tool call): the wait ends with the answer, with a refusal at `timeoutMs`, or when
 * `signal` aborts (a rejection with its reason). The handler's own signal aborts whenever the
 * wait ends without its answer, so a prompt can be withdrawn. A handler that throws refuses the
 * call; a fatal error (`isFatalError`) is rethrown, to end the run.
 */
export async function askApproval(
  handler: ApprovalHandler,
  request: ApprovalRequest,
  { timeoutMs, signal }: AskApprovalOptions,
): Promise<ApprovalDecision> {
  if (signal.aborted) throw signal.reason;
  const waiting = new AbortController();
  const stopWaiting = () => waiting.abort(signal.reason);
  signal.addEventListener("abort", stopWaiting, { once: true });
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timedOut = new Promise<ApprovalDecision>((resolve) => {
    timer = setTimeout(() => {
      const reason = `no answer came within ${timeoutMs} ms (approvalTimeoutMs)`;
      waiting.abort(new AbortError(reason));
      resolve({ approved: false, reason });
    }, timeoutMs);
  });
  const ended = new Promise<never>((_, reject) => {
    signal.addEventListener("abort", () => reject(signal.reason), { once: true });
  });
  ended.catch(() => undefined);
  try {
    const asked = Promise.resolve().then(() => handler(request, waiting.signal));
    const answer = await Promise.race([asked, timedOut, ended]);
    if (isSuspendAnswer(answer)) {
      return {
        approved: false,
        reason: "the run was suspended to wait for this answer; it comes when the run is resumed",
      };
    }
    if (!isApprovalDecision(answer)) {
      return {
        approved: false,
        reason: "the approval handler gave no decision ({ approved: true | false })",
      };
    }
    return answer;
  } catch (error) {
    if (isFatalError(error) || signal.aborted) throw error;
    return { approved: false, reason: `the approval could not be asked: ${describeThrown(error)}` };
  } finally {
    clearTimeout(timer);
    signal.removeEventListener("abort", stopWaiting);
    // The handler's wait is over either way: a prompt still showing is withdrawn.
    if (!waiting.signal.aborted) waiting.abort(new AbortError("the call no longer waits for an answer"));
  }
}
