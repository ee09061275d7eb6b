import type {
  FinishReason,
  GenerateOptions,
  Message,
  Model,
  ModelResponse,
  ModelStreamPart,
  ToolCall,
  ToolSpec,
  Usage,
} from "@atrium/spec";
import { ConfigError } from "@atrium/spec";
import { generateText, jsonSchema, type LanguageModelUsage, streamText, type ToolSet } from "ai";
import { type ModelLimits, resolveModelLimits } from "../limits.js";
import {
  type AiSdkLanguageModel,
  asConcreteLanguageModel,
  type ConcreteLanguageModel,
} from "./ai-sdk-language-model.js";
import { type ToolResultImages, toModelMessages } from "./ai-sdk-messages.js";
import { toModelError } from "./model-error.js";
import { type RetryOptions, withRetries } from "./retry.js";

export interface AiSdkModelOptions {
  /** Recorded as `model.id`; defaults to "<provider>:<modelId>" from the language model. */
  id?: string;
  /** Named in the hint of a 401/403 error, e.g. "OPENAI_API_KEY". */
  apiKeyEnvVar?: string;
  /** Where images returned by tools go; see `ToolResultImages`. Default "user-message". */
  toolResultImages?: ToolResultImages;
  /** Per attempt: the whole request (default `DEFAULT_MODEL_LIMITS.requestTimeoutMs`). */
  timeoutMs?: number;
  /** Per attempt: the longest silence between two stream chunks (default `DEFAULT_MODEL_LIMITS.streamChunkTimeoutMs`). */
  chunkTimeoutMs?: number;
  /** Retry policy wrapped around the adapter; `false` returns the bare adapter. */
  retry?: RetryOptions | false;
}

/**
 * Any AI SDK 6 `LanguageModel` (OpenAI, Anthropic, Ollama, vLLM, llama.cpp, OpenRouter, ...) as
 * an Atrium `Model`, retried with backoff unless `retry: false`. The AI SDK's own retries are
 * off (`maxRetries: 0`) so that there is one retry policy, ours.
 */
export function fromAiSdk(languageModel: AiSdkLanguageModel, options: AiSdkModelOptions = {}): Model {
  const model = new AiSdkModel(languageModel, options);
  return options.retry === false ? model : withRetries(model, options.retry);
}

/** The bare adapter, without retries. */
export class AiSdkModel implements Model {
  readonly id: string;
  readonly #languageModel: ConcreteLanguageModel;
  readonly #options: AiSdkModelOptions;
  readonly #limits: Readonly<ModelLimits>;

  constructor(languageModel: AiSdkLanguageModel, options: AiSdkModelOptions = {}) {
    // The type keeps strings out; plain JavaScript callers still pass the AI SDK's gateway strings.
    if (typeof languageModel === "string") {
      throw new ConfigError(
        `fromAiSdk needs a LanguageModel object, not the string ${JSON.stringify(languageModel)}; for model strings use resolveModel, e.g. resolveModel("openai:gpt-4o-mini")`,
      );
    }
    for (const name of ["timeoutMs", "chunkTimeoutMs"] as const) {
      const value = options[name];
      if (value !== undefined && !(Number.isFinite(value) && value > 0)) {
        throw new ConfigError(`${name} must be a positive number of milliseconds; got ${value}`);
      }
    }
    this.#languageModel = asConcreteLanguageModel(languageModel);
    this.#options = options;
    this.#limits = resolveModelLimits({
      requestTimeoutMs: options.timeoutMs,
      streamChunkTimeoutMs: options.chunkTimeoutMs,
    });
    this.id = options.id ?? `${languageModel.provider.split(".")[0]}:${languageModel.modelId}`;
  }

  async generate(messages: Message[], options: GenerateOptions = {}): Promise<ModelResponse> {
    try {
      const result = await generateText({
        ...this.#callSettings(messages, options),
        timeout: { totalMs: this.#limits.requestTimeoutMs },
      });
      return toResponse(
        result.text,
        result.toolCalls.map((call) => ({ id: call.toolCallId, name: call.toolName, input: call.input })),
        result.usage,
        result.finishReason,
      );
    } catch (error) {
      throw this.#error(error, options);
    }
  }

  async *stream(messages: Message[], options: GenerateOptions = {}): AsyncIterable<ModelStreamPart> {
    let text = "";
    const toolCalls: ToolCall[] = [];
    // Our own signal, so that a consumer who stops reading early (break, return) also ends the
    // HTTP request instead of leaving it open until a timeout.
    const request = new AbortController();
    const forwardAbort = () => request.abort(options.signal?.reason);
    if (options.signal?.aborted) forwardAbort();
    options.signal?.addEventListener("abort", forwardAbort, { once: true });
    try {
      const result = streamText({
        ...this.#callSettings(messages, options),
        abortSignal: request.signal,
        timeout: {
          totalMs: this.#limits.requestTimeoutMs,
          chunkMs: this.#limits.streamChunkTimeoutMs,
        },
        // Errors arrive as `error` parts and are thrown below; the default handler would also log them.
        onError: () => {},
      });
      for await (const part of result.fullStream) {
        switch (part.type) {
          case "text-delta":
            if (part.text === "") break;
            text += part.text;
            yield { type: "text-delta", text: part.text };
            break;
          case "tool-call": {
            const toolCall = { id: part.toolCallId, name: part.toolName, input: part.input };
            toolCalls.push(toolCall);
            yield { type: "tool-call", toolCall };
            break;
          }
          case "error":
            throw part.error;
          case "abort":
            // Only two things abort a stream: the caller's signal, or our own timeouts.
            if (options.signal?.aborted) throw options.signal.reason;
            throw new DOMException(part.reason ?? "the stream timed out", "TimeoutError");
          case "finish":
            yield {
              type: "finish",
              response: toResponse(text, toolCalls, part.totalUsage, part.finishReason),
            };
            return;
        }
      }
      throw new Error("the stream ended without a finish part");
    } catch (error) {
      throw this.#error(error, options);
    } finally {
      options.signal?.removeEventListener("abort", forwardAbort);
      request.abort();
    }
  }

  #callSettings(messages: Message[], options: GenerateOptions) {
    return {
      model: this.#languageModel,
      messages: toModelMessages(messages, this.#options.toolResultImages),
      ...(options.tools?.length ? { tools: toToolSet(options.tools) } : {}),
      ...(options.toolChoice ? { toolChoice: options.toolChoice } : {}),
      ...(options.stopSequences?.length ? { stopSequences: options.stopSequences } : {}),
      ...(options.temperature !== undefined ? { temperature: options.temperature } : {}),
      ...(options.maxOutputTokens !== undefined ? { maxOutputTokens: options.maxOutputTokens } : {}),
      ...(options.signal ? { abortSignal: options.signal } : {}),
      // Our system messages come from the agent's own prompts, not from untrusted input.
      allowSystemInMessages: true,
      maxRetries: 0,
    };
  }

  #error(error: unknown, options: GenerateOptions) {
    return toModelError(error, {
      modelId: this.id,
      apiKeyEnvVar: this.#options.apiKeyEnvVar,
      signal: options.signal,
    });
  }
}

/** Tools as JSON Schema and without `execute`: the agent runs tools itself. */
function toToolSet(tools: ToolSpec[]): ToolSet {
  const set: ToolSet = {};
  for (const spec of tools) {
    // zod's JSON Schema carries a "$schema" dialect URI that some OpenAI-compatible servers reject.
    const { $schema: _dialect, ...inputSchema } = spec.inputSchema;
    set[spec.name] = { description: spec.description, inputSchema: jsonSchema(inputSchema) };
  }
  return set;
}

function toResponse(
  text: string,
  toolCalls: ToolCall[],
  usage: LanguageModelUsage,
  finishReason: FinishReason,
): ModelResponse {
  return {
    message:
      toolCalls.length > 0
        ? { role: "assistant", content: text, toolCalls }
        : { role: "assistant", content: text },
    usage: toUsage(usage),
    finishReason,
  };
}

function toUsage(usage: LanguageModelUsage): Usage {
  return { inputTokens: usage.inputTokens ?? 0, outputTokens: usage.outputTokens ?? 0 };
}
