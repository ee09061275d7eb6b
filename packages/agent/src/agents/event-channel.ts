/**
 * A one-consumer queue that turns pushes from any number of concurrent producers (the loop,
 * parallel tool calls) into an async iterable. It never blocks producers: events wait in the
 * queue until the consumer pulls them.
 */
export class EventChannel<T> implements AsyncIterable<T> {
  readonly #queue: T[] = [];
  #waiting: (() => void) | undefined;
  #closed = false;
  #failure: { error: unknown } | undefined;

  push(value: T): void {
    if (this.#closed) return;
    this.#queue.push(value);
    this.#wake();
  }

  /** Ends iteration after the queued events; with an error, iteration then throws it. */
  close(error?: unknown): void {
    if (this.#closed) return;
    this.#closed = true;
    if (error !== undefined) this.#failure = { error };
    this.#wake();
  }

  #wake(): void {
    const waiting = this.#waiting;
    this.#waiting = undefined;
    waiting?.();
  }

  async *[Symbol.asyncIterator](): AsyncIterator<T> {
    for (;;) {
      if (this.#queue.length) {
        yield this.#queue.shift() as T;
        continue;
      }
      if (this.#closed) {
        if (this.#failure) throw this.#failure.error;
        return;
      }
      await new Promise<void>((resolve) => {
        this.#waiting = resolve;
      });
    }
  }
}
