import { AbortError, AtriumError } from "@atrium/spec";

/** Throws the run's `AbortError` if its signal has fired (checked between steps). */
export function throwIfAborted(signal: AbortSignal): void {
  if (signal.aborted) throw toAbortError(signal.reason);
}

function toAbortError(reason: unknown): AbortError {
  if (reason instanceof AbortError) return reason;
  return new AbortError(reason instanceof Error ? reason.message : "The run was aborted", { cause: reason });
}

/** Whether a run-ending error is an abort (state "aborted") rather than a failure ("error"). */
export function isAbort(error: unknown, signal: AbortSignal): boolean {
  return (
    (error instanceof AtriumError && error.code === "ABORTED") ||
    (signal.aborted && error instanceof Error && error.name === "AbortError")
  );
}
