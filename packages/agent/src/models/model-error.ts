import { AbortError, AtriumError, errorMessage } from "@atrium/spec";
import { ProviderError } from "../errors.js";

export { ProviderError };

import { APICallError } from "ai";

/** Who was being called, so that an error can say where to look. */
export interface ModelErrorContext {
  /** The model's id, e.g. "openai:gpt-4o-mini". */
  modelId: string;
  /** The environment variable holding the API key, named in 401/403 hints. */
  apiKeyEnvVar?: string;
  /** The user's signal: an abort from it is an AbortError, any other abort is a timeout. */
  signal?: AbortSignal;
}

/** HTTP statuses worth another try: timeouts, rate limits and server errors. Never other 4xx. */
export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 429 || status >= 500;
}

/**
 * Turns whatever a provider call threw into spec errors: aborts by the user stay aborts,
 * `AtriumError`s pass through, everything else becomes a `ProviderError` whose message names
 * the model, the failure and what to do about it.
 */
export function toModelError(error: unknown, context: ModelErrorContext): AtriumError {
  if (error instanceof AtriumError) return error;
  if (context.signal?.aborted) {
    return new AbortError(`The call to ${context.modelId} was aborted`, { cause: context.signal.reason });
  }
  if (isTimeout(error)) {
    return new ProviderError(
      context.modelId,
      `${context.modelId} did not answer in time (${errorMessage(error)}); if the model is just slow, raise timeoutMs / chunkTimeoutMs`,
      { isRetryable: true, cause: error },
    );
  }
  if (APICallError.isInstance(error)) return fromApiCallError(error, context);
  if (isAbortLike(error)) {
    return new AbortError(`The call to ${context.modelId} was aborted`, { cause: error });
  }
  return new ProviderError(context.modelId, `${context.modelId} failed: ${errorMessage(error)}`, {
    isRetryable: false,
    cause: error,
  });
}

function fromApiCallError(error: APICallError, context: ModelErrorContext): ProviderError {
  const status = error.statusCode;
  const detail = providerMessage(error);
  if (status === undefined) {
    return new ProviderError(
      context.modelId,
      `${context.modelId}: could not reach ${error.url} (${detail}); check that the server is running and the base URL is right`,
      { isRetryable: error.isRetryable, cause: error },
    );
  }
  const retryAfterMs = retryAfterFromHeaders(error.responseHeaders);
  return new ProviderError(
    context.modelId,
    `${context.modelId} answered HTTP ${status}: ${detail}; ${hintFor(status, context)}`,
    {
      status,
      isRetryable: isRetryableStatus(status),
      retryAfterMs,
      cause: error,
    },
  );
}

function hintFor(status: number, context: ModelErrorContext): string {
  const key = context.apiKeyEnvVar ? `check ${context.apiKeyEnvVar}` : "check the provider's API key";
  if (status === 401) return `the API key was rejected: ${key}`;
  if (status === 403) return `the API key may not use this model: ${key} and the account's access`;
  if (status === 404) return "check the model name and the base URL";
  if (status === 408) return "the provider timed out; retrying may help";
  if (status === 429) return "rate limited or out of quota; retry later or lower the request rate";
  if (status >= 500) return "the provider had a server error; retrying may help";
  return "the request was rejected; fix the request (messages, tools, options) before retrying";
}

/** The provider's own error message when its body has one (`{"error":{"message":...}}`), else the SDK's. */
function providerMessage(error: APICallError): string {
  const data = error.data as { error?: { message?: unknown } } | undefined;
  const fromData = data?.error?.message;
  if (typeof fromData === "string" && fromData.length > 0) return fromData;
  if (error.responseBody) {
    try {
      const body = JSON.parse(error.responseBody) as { error?: { message?: unknown }; message?: unknown };
      const message = body.error?.message ?? body.message;
      if (typeof message === "string" && message.length > 0) return message;
    } catch {
      // Not JSON: the SDK's message below says enough.
    }
  }
  return error.message;
}

/** Milliseconds from `retry-after-ms` (OpenAI) or `Retry-After` (seconds or an HTTP date). */
export function retryAfterFromHeaders(
  headers: Record<string, string> | undefined,
  now = Date.now(),
): number | undefined {
  if (!headers) return undefined;
  const lower = Object.fromEntries(
    Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]),
  );
  const ms = Number.parseFloat(lower["retry-after-ms"] ?? "");
  if (Number.isFinite(ms) && ms >= 0) return ms;
  const value = lower["retry-after"];
  if (value === undefined) return undefined;
  const seconds = Number(value.trim());
  if (value.trim() !== "" && Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  // An HTTP date always names its weekday and month; without letters, Date.parse would read "-4" as a year.
  const date = /[a-z]/i.test(value) ? Date.parse(value) : Number.NaN;
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

function isTimeout(error: unknown): boolean {
  return error instanceof Error && error.name === "TimeoutError";
}

function isAbortLike(error: unknown): boolean {
  return error instanceof Error && (error.name === "AbortError" || error.name === "ResponseAborted");
}
