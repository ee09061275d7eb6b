import { setTimeout as sleep } from "node:timers/promises";
import type { GenerateOptions, Message, Model, ModelResponse, ModelStreamPart } from "@atrium/spec";
import { AbortError, type AtriumError, ConfigError, ModelError } from "@atrium/spec";
import {
  MODEL_RETRY_BASE_DELAY_MS,
  MODEL_RETRY_MAX_AFTER_MS,
  MODEL_RETRY_MAX_ATTEMPTS,
  MODEL_RETRY_MAX_DELAY_MS,
} from "../tuning.js";
import { ProviderError, toModelError } from "./model-error.js";

export interface RetryOptions {
  /** Attempts in all, the first included (default `MODEL_RETRY_MAX_ATTEMPTS`); 1 disables retries. */
  maxAttempts?: number;
  /** Backoff before the second attempt, doubled for each later one (default `MODEL_RETRY_BASE_DELAY_MS`). */
  baseDelayMs?: number;
  /** Ceiling of the exponential backoff (default `MODEL_RETRY_MAX_DELAY_MS`). */
  maxDelayMs?: number;
  /** Ceiling of a wait the provider asked for with Retry-After (default `MODEL_RETRY_MAX_AFTER_MS`). */
  maxRetryAfterMs?: number;
  /** Source of jitter in [0, 1); tests pin it. */
  random?: () => number;
  /** Told before each wait, e.g. to log "retrying in 2 s". */
  onRetry?: (event: RetryEvent) => void;
}

export interface RetryEvent {
  modelId: string;
  /** The attempt that failed, from 1. */
  attempt: number;
  delayMs: number;
  error: AtriumError;
}

/**
 * Wraps a model so that retryable failures (429, 5xx, timeouts, network errors) are tried
 * again with exponential backoff and jitter, honouring the provider's Retry-After. Other
 * failures (400, 401, 403, 404, 422, ...) and aborts are thrown at once. A stream is retried
 * only until its first part was emitted: after that the consumer has seen output that a new
 * attempt could contradict.
 */
export function withRetries(model: Model, options: RetryOptions = {}): Model {
  checkRetryOptions(options);
  return new RetryingModel(model, options);
}

function checkRetryOptions(options: RetryOptions): void {
  const { maxAttempts, baseDelayMs, maxDelayMs, maxRetryAfterMs } = options;
  if (maxAttempts !== undefined && !(Number.isInteger(maxAttempts) && maxAttempts >= 1)) {
    throw new ConfigError(
      `retry.maxAttempts must be an integer of at least 1 (1 = no retries); got ${maxAttempts}`,
    );
  }
  for (const [name, value] of Object.entries({ baseDelayMs, maxDelayMs, maxRetryAfterMs })) {
    if (value !== undefined && !(Number.isFinite(value) && value >= 0)) {
      throw new ConfigError(`retry.${name} must be a finite number of milliseconds, 0 or more; got ${value}`);
    }
  }
}

class RetryingModel implements Model {
  readonly id: string;
  readonly #model: Model;
  readonly #options: RetryOptions;

  constructor(model: Model, options: RetryOptions) {
    this.#model = model;
    this.#options = options;
    this.id = model.id;
  }

  async generate(messages: Message[], options: GenerateOptions = {}): Promise<ModelResponse> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.#model.generate(messages, options);
      } catch (error) {
        await this.#waitOrThrow(error, attempt, options.signal);
      }
    }
  }

  async *stream(messages: Message[], options: GenerateOptions = {}): AsyncIterable<ModelStreamPart> {
    for (let attempt = 1; ; attempt++) {
      let emitted = false;
      try {
        for await (const part of this.#model.stream(messages, options)) {
          emitted = true;
          yield part;
        }
        return;
      } catch (error) {
        if (emitted) throw toModelError(error, { modelId: this.id, signal: options.signal });
        await this.#waitOrThrow(error, attempt, options.signal);
      }
    }
  }

  /** Returns after the backoff when another attempt is due; otherwise throws the final error. */
  async #waitOrThrow(thrown: unknown, attempt: number, signal: AbortSignal | undefined): Promise<void> {
    const error = toModelError(thrown, { modelId: this.id, signal });
    const maxAttempts = this.#options.maxAttempts ?? MODEL_RETRY_MAX_ATTEMPTS;
    if (!error.isRetryable || error instanceof AbortError) throw error;
    if (attempt >= maxAttempts) throw gaveUp(error, attempt);
    const delayMs = retryDelayMs(attempt, error, this.#options);
    this.#options.onRetry?.({ modelId: this.id, attempt, delayMs, error });
    try {
      await sleep(delayMs, undefined, { signal });
    } catch {
      throw new AbortError(`The call to ${this.id} was aborted while waiting to retry`, {
        cause: signal?.reason,
      });
    }
  }
}

/**
 * The wait after failed attempt `attempt` (from 1): the provider's Retry-After when it sent one
 * (capped), else `baseDelayMs * 2^(attempt-1)` capped at `maxDelayMs`, with "equal jitter" (a
 * random half on top of a fixed half) so that clients that failed together do not retry together.
 */
export function retryDelayMs(attempt: number, error: unknown, options: RetryOptions = {}): number {
  const retryAfterMs = error instanceof ProviderError ? error.retryAfterMs : undefined;
  if (retryAfterMs !== undefined)
    return Math.min(retryAfterMs, options.maxRetryAfterMs ?? MODEL_RETRY_MAX_AFTER_MS);
  const base = options.baseDelayMs ?? MODEL_RETRY_BASE_DELAY_MS;
  const ceiling = Math.min(options.maxDelayMs ?? MODEL_RETRY_MAX_DELAY_MS, base * 2 ** (attempt - 1));
  const random = options.random ?? Math.random;
  return Math.round(ceiling / 2 + random() * (ceiling / 2));
}

function gaveUp(error: AtriumError, attempts: number): AtriumError {
  if (attempts === 1 || !(error instanceof ModelError)) return error;
  return new ModelError(`${error.message} (gave up after ${attempts} attempts)`, {
    status: error.status,
    isRetryable: true,
    cause: error,
  });
}
