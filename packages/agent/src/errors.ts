import { ModelError } from "@atrium/spec";

/**
 * A provider call failed. Adds what a retry loop needs (`retryAfterMs`, from the provider's
 * `Retry-After` / `retry-after-ms` headers) to spec's `ModelError`.
 */
export class ProviderError extends ModelError {
  readonly modelId: string;
  readonly retryAfterMs: number | undefined;

  constructor(
    modelId: string,
    message: string,
    options: { status?: number; isRetryable: boolean; retryAfterMs?: number; cause?: unknown },
  ) {
    super(message, { status: options.status, isRetryable: options.isRetryable, cause: options.cause });
    this.modelId = modelId;
    this.retryAfterMs = options.retryAfterMs;
  }
}
