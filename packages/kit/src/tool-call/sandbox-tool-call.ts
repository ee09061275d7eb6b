import {
  type ApprovalDecision,
  type ApprovalRequest,
  type ImagePart,
  isFatalError,
  isRichToolResult,
  type Tool,
  type ToolProgress,
  ValidationError,
} from "@atrium/spec";
import { capText } from "../values/cap-text.js";
import { describeThrown } from "../values/describe-thrown.js";
import { toJsonText } from "../values/sandbox-json.js";
import { NO_APPROVER_REASON, notApprovedMessage, toolNeedsApproval } from "./ask-approval.js";

/**
 * What an executor reports about the tool calls its code makes, shaped like the matching
 * `AgentEvent`s without `step` (an agent loop adds it).
 */
export type ToolCallEvent =
  | { type: "tool-call"; id: string; name: string; input: unknown }
  | { type: "tool-progress"; id: string; name: string; progress: ToolProgress }
  | {
      type: "tool-result";
      id: string;
      name: string;
      output: unknown;
      error?: string;
      images?: ImagePart[];
      durationMs: number;
    };

/** The longest tool error message that enters a sandbox when the executor names no limit. */
export const DEFAULT_SANDBOX_ERROR_CHARS = 20_000;

/** What sandboxed code gets back from a host tool: its value as JSON, or an error to raise. */
export type SandboxToolOutcome =
  | { ok: true; json: string | undefined }
  | { ok: false; name: "ValidationError" | "ToolError"; message: string };

/** One call, from sandboxed code, of a tool that runs on the host. */
export interface SandboxToolCall {
  tool: Tool;
  input: unknown;
  id: string;
  /** Aborted when the run (or step) the call belongs to ends. */
  signal: AbortSignal;
  /** Images the tool returns are added here (unless the run has ended), to go out with its result. */
  images: ImagePart[];
  /** The longest JSON text the sandbox accepts; a longer value fails the call. */
  maxJsonChars: number;
  /** The executor's limit behind `maxJsonChars`, named in that failure so it can be raised. */
  limitName: string;
  /**
   * The longest error message that enters the sandbox (the executor's `maxErrorChars`); a
   * longer one is cut with a note saying how much. Default `DEFAULT_SANDBOX_ERROR_CHARS`.
   */
  maxErrorChars?: number;
  onToolCall?: (event: ToolCallEvent) => void;
  /**
   * Asks whether a call of a tool that needs approval (`Tool.needsApproval`) may run. Absent,
   * such a call is refused. The executor's version holds the step's clock while it waits.
   */
  approve?: (request: ApprovalRequest) => Promise<ApprovalDecision>;
}

/** A call that was not approved: the code sees a `ToolError` with this message. */
class ToolDenied extends Error {
  constructor(toolName: string, reason: string | undefined) {
    super(notApprovedMessage(toolName, reason));
  }
}

/**
 * The host half of a tool call made by sandboxed code, the same for every executor: validate,
 * execute with the run's signal, keep the images, turn the value into JSON for the sandbox
 * (`toJsonText`), report events. Never throws: a fatal error (`isFatalError`) comes back as
 * `fatal`, for the executor to end the run with; any other failure as an outcome the code sees
 * as an exception (`ValidationError` or `ToolError`, with a message for any thrown value).
 */
export async function runSandboxToolCall(
  call: SandboxToolCall,
): Promise<SandboxToolOutcome | { fatal: unknown }> {
  const { tool, id, signal } = call;
  const name = tool.name;
  const started = performance.now();
  // Inside the try, an observer's fatal error is thrown, so it ends the call as a tool's would.
  const emit = (event: ToolCallEvent) => {
    const fatal = notify(call, event);
    if (fatal) throw fatal.error;
  };
  try {
    emit({ type: "tool-call", id, name, input: call.input });
    let value = call.input;
    if (tool.validate) {
      const checked = await tool.validate(value);
      if (!checked.ok) throw new ValidationError(`Invalid input for tool "${name}"`, checked.issues);
      value = checked.value;
    }
    if (await toolNeedsApproval(tool, value, id)) {
      const decision = call.approve
        ? await call.approve({ toolCallId: id, toolName: name, input: value })
        : { approved: false as const, reason: NO_APPROVER_REASON };
      if (!decision.approved) throw new ToolDenied(name, decision.reason);
    }
    const result = await tool.execute(value, {
      signal,
      toolCallId: id,
      onProgress: (progress) => emit({ type: "tool-progress", id, name, progress }),
    });
    const output = isRichToolResult(result) ? result.value : result;
    const images = isRichToolResult(result) ? (result.images ?? []) : [];
    const json = resultJson(name, output, call);
    if (!signal.aborted) call.images.push(...images);
    emit({
      type: "tool-result",
      id,
      name,
      output,
      ...(images.length ? { images } : {}),
      durationMs: performance.now() - started,
    });
    return { ok: true, json };
  } catch (error) {
    const kind = failureKind(error);
    if (kind === "fatal") return { fatal: error };
    // Capped here, on the host, for every executor: a tool's error text can be of any length.
    const maxErrorChars = call.maxErrorChars ?? DEFAULT_SANDBOX_ERROR_CHARS;
    const failure: SandboxToolOutcome =
      kind === "validation"
        ? {
            ok: false,
            name: "ValidationError",
            message: capText((error as ValidationError).message, maxErrorChars),
          }
        : {
            ok: false,
            name: "ToolError",
            message: capText(
              kind === "denied"
                ? (error as ToolDenied).message
                : `Tool "${name}" failed: ${describeThrown(error)}`,
              maxErrorChars,
            ),
          };
    // Here nothing may throw (it would escape as a rejection): an observer's fatal error is returned.
    const fatal = notify(call, {
      type: "tool-result",
      id,
      name,
      output: undefined,
      error: failure.message,
      durationMs: performance.now() - started,
    });
    return fatal ? { fatal: fatal.error } : failure;
  }
}

/**
 * Tells the call's observer. It must not change what the code sees: what it throws is dropped,
 * but a fatal error, which ends the run, is handed back.
 */
function notify(call: SandboxToolCall, event: ToolCallEvent): { error: unknown } | undefined {
  try {
    call.onToolCall?.(event);
  } catch (error) {
    if (failureKind(error) === "fatal") return { error };
  }
  return undefined;
}

function resultJson(name: string, output: unknown, call: SandboxToolCall): string | undefined {
  let json: string | undefined;
  try {
    json = toJsonText(output);
  } catch (error) {
    throw new TypeError(
      `tool "${name}" returned data that cannot enter the sandbox: ${describeThrown(error)}`,
    );
  }
  if (json !== undefined && json.length > call.maxJsonChars) {
    throw new RangeError(
      `tool "${name}" returned ${json.length} characters of JSON; the sandbox accepts at most ${call.maxJsonChars} (${call.limitName})`,
    );
  }
  return json;
}

/**
 * What a thrown value is: fatal (`isFatalError`), a `ValidationError`, a call that was not
 * approved, or any other failure; a
 * hostile value (a proxy whose traps throw) is the last.
 */
function failureKind(error: unknown): "fatal" | "validation" | "denied" | "tool" {
  try {
    if (isFatalError(error)) return "fatal";
    if (error instanceof ToolDenied) return "denied";
    return error instanceof ValidationError ? "validation" : "tool";
  } catch {
    return "tool";
  }
}
