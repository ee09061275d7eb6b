import {
  type ImagePart,
  isFatalError,
  isRichToolResult,
  rethrowIfFatal,
  type Tool,
  type ToolProgress,
  ValidationError,
} from "@atrium/spec";
import { describeThrown } from "./describe-thrown.js";
import { toJsonText } from "./json-crossing.js";
import type { ToolOutcome } from "./worker-protocol.js";

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

/** The run a tool call belongs to, as the host sees it. */
export interface ToolCallRun {
  /** Aborted when the run ends or is stopped. */
  signal: AbortSignal;
  /** Images returned by tools; they go out with the run's result. */
  images: ImagePart[];
}

/**
 * The host half of one tool call: validate, execute with the run's signal, collect images,
 * turn the value into JSON for the sandbox. Never throws: a fatal error comes back as `fatal`
 * (the run must end with it), every other failure as an outcome the code sees as an exception.
 */
export async function runToolCall(
  tool: Tool,
  input: unknown,
  call: { id: string; name: string },
  run: ToolCallRun,
  options: ToolBridgeOptions,
): Promise<ToolOutcome | { fatal: unknown }> {
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
      signal: run.signal,
      toolCallId: id,
      onProgress: (progress) => emit({ type: "tool-progress", id, name, progress }),
    });
    const output = isRichToolResult(result) ? result.value : result;
    const images = isRichToolResult(result) ? (result.images ?? []) : [];
    outcome = { ok: true, json: resultJson(name, output, options.maxTransferChars) };
    if (!run.signal.aborted) run.images.push(...images);
    emit({
      type: "tool-result",
      id,
      name,
      output,
      ...(images.length ? { images } : {}),
      durationMs: performance.now() - started,
    });
  } catch (error) {
    if (isFatalError(error)) return { fatal: error };
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
  return outcome;
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
