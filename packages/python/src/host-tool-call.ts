import {
  type ImagePart,
  isFatalError,
  isRichToolResult,
  rethrowIfFatal,
  type Tool,
  type ToolProgress,
  ValidationError,
} from "@atrium/spec";
import type { ToolOutcome } from "./worker-protocol.js";

/** What the executor reports about tool calls made by the code (the agent adds `step`). */
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

export interface HostToolCall {
  tool: Tool;
  input: unknown;
  id: string;
  /** Aborted when the step ends. */
  signal: AbortSignal;
  /** Images returned by tools go here, and out with the step's result. */
  images: ImagePart[];
  maxTransferChars: number;
  onToolCall?: (event: ToolCallEvent) => void;
}

/**
 * The host half of one tool call from Python: validate, execute with the step's signal, keep
 * images, turn the value into JSON for the sandbox. Never throws: a fatal error comes back as
 * `fatal` (the run ends with it), any other failure as an outcome Python raises as `ToolError`.
 */
export async function runHostToolCall(call: HostToolCall): Promise<ToolOutcome | { fatal: unknown }> {
  const { tool, id, signal } = call;
  const name = tool.name;
  const started = performance.now();
  const emit = (event: ToolCallEvent) => {
    try {
      call.onToolCall?.(event);
    } catch (error) {
      // An observer must not change what the code sees; only fatal errors get through.
      rethrowIfFatal(error);
    }
  };
  try {
    emit({ type: "tool-call", id, name, input: call.input });
    let value = call.input;
    if (tool.validate) {
      const checked = await tool.validate(value);
      if (!checked.ok) throw new ValidationError(`Invalid input for tool "${name}"`, checked.issues);
      value = checked.value;
    }
    const result = await tool.execute(value, {
      signal,
      toolCallId: id,
      onProgress: (progress) => emit({ type: "tool-progress", id, name, progress }),
    });
    const output = isRichToolResult(result) ? result.value : result;
    const images = isRichToolResult(result) ? (result.images ?? []) : [];
    const json = output === undefined ? undefined : JSON.stringify(output);
    if (json !== undefined && json.length > call.maxTransferChars) {
      throw new RangeError(
        `tool "${name}" returned ${json.length} characters of JSON; the sandbox accepts at most ${call.maxTransferChars}`,
      );
    }
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
    if (isFatalError(error)) return { fatal: error };
    const message =
      error instanceof ValidationError
        ? error.message
        : `Tool "${name}" failed: ${error instanceof Error ? error.message : String(error)}`;
    emit({
      type: "tool-result",
      id,
      name,
      output: undefined,
      error: message,
      durationMs: performance.now() - started,
    });
    return { ok: false, name: error instanceof ValidationError ? "ValidationError" : "ToolError", message };
  }
}
