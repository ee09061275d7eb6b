/**
 * The events of one run on their way to the loop's generator. Producers inside a step (model
 * deltas, tool calls from the sandbox, parallel tool calls) push at any time and never wait;
 * the generator yields what is queued between its own awaits, and while a step runs it yields
 * each event as it arrives (`during`), so model output streams token by token.
 */
export class EventChannel<T> {
  #queue: T[] = [];
  /** Wakes `during` when an event arrives or its work settles. */
  #wake: (() => void) | undefined;

  push(value: T): void {
    this.#queue.push(value);
    this.#notify();
  }

  /** Yields the events queued so far. */
  *drain(): Generator<T, void, undefined> {
    yield* this.#take();
  }

  /** Empties the queue (swapped rather than shifted: a long step can queue thousands of deltas). */
  #take(): T[] {
    const batch = this.#queue;
    if (batch.length) this.#queue = [];
    return batch;
  }

  /**
   * Yields events as they arrive while `work` runs, then the ones it left, and returns what it
   * resolved to (or throws what it rejected with). When the consumer stops reading before
   * `work` has settled, `onLeave` is called (it should cancel the work) and the generator waits
   * for `work` to settle, so nothing of the run is left running once it has returned.
   */
  async *during<R>(work: Promise<R>, onLeave: () => void): AsyncGenerator<T, R, undefined> {
    let outcome: { value: R } | { error: unknown } | undefined;
    const settled = work.then(
      (value) => {
        outcome = { value };
        this.#notify();
      },
      (error: unknown) => {
        outcome = { error };
        this.#notify();
      },
    );
    try {
      while (!outcome) {
        // Yielding takes ticks, in which the work may settle or push more: check both again.
        yield* this.#take();
        if (outcome || this.#queue.length) continue;
        await new Promise<void>((resolve) => {
          this.#wake = resolve;
        });
      }
      yield* this.#take();
    } finally {
      if (!outcome) {
        onLeave();
        await settled;
      }
    }
    if ("error" in outcome) throw outcome.error;
    return outcome.value;
  }

  #notify(): void {
    const wake = this.#wake;
    this.#wake = undefined;
    wake?.();
  }
}
