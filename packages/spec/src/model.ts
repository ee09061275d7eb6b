import type { AssistantMessage, Message, ToolCall } from "./messages.js";
import type { JsonSchema } from "./tool.js";

export interface Usage {
  inputTokens: number;
  outputTokens: number;
}

export function addUsage(a: Usage, b: Usage): Usage {
  return { inputTokens: a.inputTokens + b.inputTokens, outputTokens: a.outputTokens + b.outputTokens };
}

export const ZERO_USAGE: Usage = Object.freeze({ inputTokens: 0, outputTokens: 0 });

/** A tool as a model sees it: a name, what it does, and its input as JSON Schema. */
export interface ToolSpec {
  name: string;
  description: string;
  inputSchema: JsonSchema;
}

export interface GenerateOptions {
  stopSequences?: string[];
  tools?: ToolSpec[];
  toolChoice?: "auto" | "required" | "none";
  temperature?: number;
  maxOutputTokens?: number;
  signal?: AbortSignal;
}

export type FinishReason = "stop" | "length" | "tool-calls" | "content-filter" | "error" | "other";

export interface ModelResponse {
  message: AssistantMessage;
  usage: Usage;
  finishReason: FinishReason;
}

export type ModelStreamPart =
  | { type: "text-delta"; text: string }
  | { type: "tool-call"; toolCall: ToolCall }
  | { type: "finish"; response: ModelResponse };

/**
 * Anything that turns messages into an assistant message. `stream` ends with exactly one
 * `finish` part whose response equals what `generate` would have returned. Provider failures
 * throw `ModelError` (with `isRetryable` set for 429/5xx/timeouts); aborts throw `AbortError`.
 */
export interface Model {
  readonly id: string;
  generate(messages: Message[], options?: GenerateOptions): Promise<ModelResponse>;
  stream(messages: Message[], options?: GenerateOptions): AsyncIterable<ModelStreamPart>;
}
