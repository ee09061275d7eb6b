import { AbortError, type AgentEvent, errorMessage } from "@atrium/spec";

/** A caller's `onEvent`, called so that its exceptions cannot reach the loop, a tool or the sandbox. */
export interface GuardedObserver {
  /** Calls `onEvent` with the event unless it has already thrown; never throws itself. */
  emit(event: AgentEvent): void;
  /** Fires when `onEvent` throws; its reason is an `AbortError` naming the callback and the event. */
  readonly signal: AbortSignal;
  /** What `onEvent` threw, the first time it threw. */
  readonly failure: { error: unknown } | undefined;
}

/**
 * Wraps `onEvent` for one run. The first exception it throws is kept and aborts the run (the
 * run's `error` event says which event `onEvent` failed on); later events skip `onEvent`. The
 * caller rethrows the kept exception once the run has ended, so the sandbox and the agent are
 * left ready for the next run.
 */
export function guardObserver(onEvent: ((event: AgentEvent) => void) | undefined): GuardedObserver {
  const stop = new AbortController();
  let failure: { error: unknown } | undefined;
  return {
    signal: stop.signal,
    get failure() {
      return failure;
    },
    emit(event) {
      if (!onEvent || failure) return;
      try {
        onEvent(event);
      } catch (error) {
        failure = { error };
        const message = errorMessage(error);
        stop.abort(
          new AbortError(`the onEvent callback threw on a ${event.type} event: ${message}`, { cause: error }),
        );
      }
    },
  };
}
