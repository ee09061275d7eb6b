/**
 * How many questions one server answers at once. Each ask holds a docs session, a sandbox and
 * model calls, so on a small machine a burst of tabs must wait (429) rather than slow them all.
 * Also what shutdown waits for: every ask that started has ended before the docs close.
 */
export class AskSlots {
  readonly #max: number;
  readonly #running = new Set<Promise<void>>();

  constructor(max: number) {
    this.#max = max;
  }

  get inUse(): number {
    return this.#running.size;
  }

  /** Runs `work` in a free slot, or returns false at once when all are taken. */
  tryRun(work: () => Promise<void>): boolean {
    if (this.#running.size >= this.#max) return false;
    const running: Promise<void> = work().finally(() => this.#running.delete(running));
    this.#running.add(running);
    return true;
  }

  /** Resolves when every ask started so far has ended (their errors are the stream's business). */
  async drain(): Promise<void> {
    await Promise.allSettled([...this.#running]);
  }
}
