import {
  type ImagePart,
  isFatalError,
  isRichToolResult,
  rethrowIfFatal,
  type Tool,
  type ToolProgress,
  ValidationError,
} from "@atrium/spec";
import { toJsonText } from "./json-crossing.js";
import type { PendingToolCall, RunState, ToolOutcome } from "./run-state.js";

/**
 * What the executor reports about tool calls made by the code, shaped like the matching
 * `AgentEvent`s without `step` (the agent loop adds it).
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

export interface ToolBridgeOptions {
  onToolCall?: (event: ToolCallEvent) => void;
  maxTransferChars: number;
}

/**
 * The host half of one tool call: validate, execute with the run's signal, collect images,
 * turn the value into JSON for the sandbox. Never throws: the outcome is settled on the run, or,
 * for a fatal error, the run is stopped with it.
 */
export async function runToolCall(
  tool: Tool,
  input: unknown,
  call: PendingToolCall,
  run: RunState,
  options: ToolBridgeOptions,
): Promise<void> {
  const started = performance.now();
  const emit = (event: ToolCallEvent) => {
    try {
      options.onToolCall?.(event);
    } catch (error) {
      // An observer must not change what the code sees; only fatal errors get through.
      rethrowIfFatal(error);
    }
  };
  const { id, name } = call;
  let outcome: ToolOutcome;
  try {
    emit({ type: "tool-call", id, name, input });
    let value = input;
    if (tool.validate) {
      const checked = await tool.validate(input);
      if (!checked.ok) throw new ValidationError(`Invalid input for tool "${name}"`, checked.issues);
      value = checked.value;
    }
    const result = await tool.execute(value, {
      signal: run.controller.signal,
      toolCallId: id,
      onProgress: (progress) => emit({ type: "tool-progress", id, name, progress }),
    });
    const output = isRichToolResult(result) ? result.value : result;
    const images = isRichToolResult(result) ? (result.images ?? []) : [];
    outcome = { ok: true, json: resultJson(name, output, options.maxTransferChars) };
    if (!run.controller.signal.aborted) run.images.push(...images);
    emit({
      type: "tool-result",
      id,
      name,
      output,
      ...(images.length ? { images } : {}),
      durationMs: performance.now() - started,
    });
  } catch (error) {
    if (isFatalError(error)) {
      run.requestStop({ type: "fatal", error });
      return;
    }
    const failure = toolFailure(name, error);
    outcome = failure;
    emit({
      type: "tool-result",
      id,
      name,
      output: undefined,
      error: failure.message,
      durationMs: performance.now() - started,
    });
  }
  run.settle(call, outcome);
}

function resultJson(name: string, output: unknown, maxChars: number): string | undefined {
  let json: string | undefined;
  try {
    json = toJsonText(output);
  } catch (error) {
    throw new TypeError(
      `tool "${name}" returned data that cannot enter the sandbox: ${describeThrown(error)}`,
    );
  }
  if (json !== undefined && json.length > maxChars) {
    throw new RangeError(
      `tool "${name}" returned ${json.length} characters of JSON; the sandbox accepts at most ${maxChars}`,
    );
  }
  return json;
}

function toolFailure(name: string, error: unknown): ToolOutcome & { ok: false } {
  if (error instanceof ValidationError) return { ok: false, name: "ValidationError", message: error.message };
  return { ok: false, name: "ToolError", message: `Tool "${name}" failed: ${describeThrown(error)}` };
}

/** A message for anything a tool may throw, including values that are not Errors. */
export function describeThrown(error: unknown): string {
  try {
    if (error instanceof Error) return error.message || error.name || "Error";
    if (typeof error === "string") return error;
    if (error === null || error === undefined) return `it threw ${String(error)}`;
    if (typeof error === "object") {
      const message = (error as { message?: unknown }).message;
      if (typeof message === "string") return message;
      return `it threw a non-Error value: ${JSON.stringify(error) ?? String(error)}`;
    }
    return `it threw ${String(error)}`;
  } catch {
    return "it threw a value that cannot be read";
  }
}
