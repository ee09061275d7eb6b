import { AbortError } from "@atrium/spec";

/**
 * Spec's `AbortError` when the signal has fired: a fatal error every broad `catch` re-throws, so
 * a cancelled mining run stops instead of being recorded as one more failed file.
 */
export function throwIfAborted(signal: AbortSignal | undefined, what = "mining"): void {
  if (signal?.aborted) throw new AbortError(`${what} was aborted`, { cause: signal.reason });
}
