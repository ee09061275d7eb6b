import {
  AbortError,
  ConfigError,
  type ContentPart,
  type FinishReason,
  type GenerateOptions,
  type Message,
  type Model,
  type ModelResponse,
  type ModelStreamPart,
  type ToolCall,
  type Usage,
} from "@atrium/spec";
import { SCRIPTED_CHARS_PER_TOKEN, SCRIPTED_IMAGE_TOKENS } from "../tuning.js";

/** A tool call in a script; `id` may be left out and is then derived from the call number. */
export interface ScriptedToolCall {
  id?: string;
  name: string;
  input: unknown;
}

/** A full assistant reply in a script. Missing `usage` is estimated from characters. */
export interface ScriptedAssistantReply {
  content: string;
  toolCalls?: ScriptedToolCall[];
  usage?: Usage;
  finishReason?: FinishReason;
}

/**
 * One scripted reply: the assistant's text, a full reply, or an Error that the call throws
 * (to rehearse provider failures such as a `ModelError` with status 429).
 */
export type ScriptedReply = string | ScriptedAssistantReply | Error;

/** Computes the reply from the request; `callIndex` counts calls from 0. */
export type ScriptedReplyFunction = (
  messages: Message[],
  options: GenerateOptions,
  callIndex: number,
) => ScriptedReply | Promise<ScriptedReply>;

export interface ScriptedModelOptions {
  /** Recorded as `model.id`; defaults to "scripted". */
  id?: string;
}

/** One recorded call: the messages (a copy of the array) and the options as given. */
export interface ScriptedModelCall {
  messages: Message[];
  options: GenerateOptions;
}

/**
 * A `Model` that answers from a script instead of a provider: a list of replies consumed in
 * order, or a function of the request. It behaves like a real provider where tests can observe
 * it (stop sequences cut the text, streams arrive in word-sized deltas, usage is reported,
 * aborts throw `AbortError`) and records every call for assertions.
 */
export class ScriptedModel implements Model {
  readonly id: string;
  readonly calls: ScriptedModelCall[] = [];
  readonly #script: readonly ScriptedReply[] | ScriptedReplyFunction;

  constructor(script: readonly ScriptedReply[] | ScriptedReplyFunction, options: ScriptedModelOptions = {}) {
    if (typeof script !== "function" && !Array.isArray(script)) {
      throw new ConfigError(
        "ScriptedModel: the script must be an array of replies or a function (messages, options, callIndex) => reply",
      );
    }
    this.#script = script;
    this.id = options.id ?? "scripted";
  }

  /** Replies left in a list script; `Infinity` for a function script. */
  get remaining(): number {
    return typeof this.#script === "function"
      ? Number.POSITIVE_INFINITY
      : this.#script.length - this.calls.length;
  }

  async generate(messages: Message[], options: GenerateOptions = {}): Promise<ModelResponse> {
    return this.#respond(messages, options);
  }

  async *stream(messages: Message[], options: GenerateOptions = {}): AsyncIterable<ModelStreamPart> {
    const response = await this.#respond(messages, options);
    for (const text of splitIntoDeltas(response.message.content)) {
      // A real stream yields to the event loop between chunks; so does this one, so that
      // consumers that abort mid-stream are exercised.
      await Promise.resolve();
      throwIfAborted(options.signal);
      yield { type: "text-delta", text };
    }
    for (const toolCall of response.message.toolCalls ?? []) {
      yield { type: "tool-call", toolCall };
    }
    yield { type: "finish", response };
  }

  async #respond(messages: Message[], options: GenerateOptions): Promise<ModelResponse> {
    throwIfAborted(options.signal);
    const callIndex = this.calls.length;
    this.calls.push({ messages: [...messages], options });
    const reply = await this.#replyFor(messages, options, callIndex);
    throwIfAborted(options.signal);
    if (reply instanceof Error) throw reply;
    return toResponse(typeof reply === "string" ? { content: reply } : reply, messages, options, callIndex);
  }

  async #replyFor(messages: Message[], options: GenerateOptions, callIndex: number): Promise<ScriptedReply> {
    const script = this.#script;
    if (typeof script === "function") {
      const reply = await raceAbort(Promise.resolve(script(messages, options, callIndex)), options.signal);
      return checkReply(reply, callIndex);
    }
    if (callIndex >= script.length) {
      throw new ConfigError(
        `ScriptedModel: no reply scripted for call #${callIndex + 1} (the script has ${script.length} ${
          script.length === 1 ? "reply" : "replies"
        }); add replies to the script or expect fewer model calls`,
      );
    }
    return checkReply(script[callIndex] as ScriptedReply, callIndex);
  }
}

function checkReply(reply: unknown, callIndex: number): ScriptedReply {
  if (typeof reply === "string" || reply instanceof Error) return reply;
  if (
    reply !== null &&
    typeof reply === "object" &&
    typeof (reply as { content?: unknown }).content === "string"
  ) {
    return reply as ScriptedAssistantReply;
  }
  throw new ConfigError(
    `ScriptedModel: the reply for call #${callIndex + 1} must be a string, { content: string, toolCalls?, usage? } or an Error; got ${describe(reply)}`,
  );
}

function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return typeof value === "object"
    ? `an object with keys ${Object.keys(value).join(", ") || "(none)"}`
    : typeof value;
}

function toResponse(
  reply: ScriptedAssistantReply,
  messages: Message[],
  options: GenerateOptions,
  callIndex: number,
): ModelResponse {
  const stopped = cutAtStopSequence(reply.content, options.stopSequences);
  const toolCalls: ToolCall[] = (reply.toolCalls ?? []).map((call, index) => ({
    id: call.id ?? `call_${callIndex + 1}_${index + 1}`,
    name: call.name,
    input: call.input,
  }));
  const finishReason: FinishReason = reply.finishReason ?? (toolCalls.length > 0 ? "tool-calls" : "stop");
  return {
    message:
      toolCalls.length > 0
        ? { role: "assistant", content: stopped, toolCalls }
        : { role: "assistant", content: stopped },
    usage: reply.usage ?? {
      inputTokens: estimateInputTokens(messages),
      outputTokens: estimateTokens(stopped),
    },
    finishReason,
  };
}

/** Like OpenAI and Anthropic: the text ends before the earliest stop sequence, which is dropped. */
export function cutAtStopSequence(text: string, stopSequences: readonly string[] = []): string {
  let end = text.length;
  for (const stop of stopSequences) {
    if (stop === "") continue;
    const at = text.indexOf(stop);
    if (at !== -1 && at < end) end = at;
  }
  return text.slice(0, end);
}

/** Word-sized pieces (a word with its trailing whitespace) that concatenate back to `text`. */
export function splitIntoDeltas(text: string): string[] {
  return text.match(/\s+|\S+\s*/gy) ?? [];
}

function estimateTokens(text: string): number {
  return Math.ceil(text.length / SCRIPTED_CHARS_PER_TOKEN);
}

function estimateInputTokens(messages: Message[]): number {
  let tokens = 0;
  for (const message of messages) {
    if (message.role === "tool" || message.role === "user") tokens += estimateContentTokens(message.content);
    else tokens += estimateTokens(message.content);
    if (message.role === "assistant") {
      for (const call of message.toolCalls ?? [])
        tokens += estimateTokens(call.name + JSON.stringify(call.input));
    }
  }
  return tokens;
}

function estimateContentTokens(content: string | ContentPart[]): number {
  if (typeof content === "string") return estimateTokens(content);
  let tokens = 0;
  for (const part of content)
    tokens += part.type === "text" ? estimateTokens(part.text) : SCRIPTED_IMAGE_TOKENS;
  return tokens;
}

function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw new AbortError("The model call was aborted", { cause: signal.reason });
}

function raceAbort<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise;
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(new AbortError("The model call was aborted", { cause: signal.reason }));
    if (signal.aborted) return onAbort();
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}
