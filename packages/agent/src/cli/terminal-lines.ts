import { createInterface, type Interface } from "node:readline";

/**
 * Lines typed at the terminal, read one answer at a time. The terminal stays in its ordinary
 * (cooked) mode: it echoes and edits the line, and Ctrl-C stays a SIGINT for the whole run,
 * which a raw-mode reader would swallow. A line typed while no question waits is dropped, so a
 * key pressed early never answers a question not yet shown.
 */
export class TerminalLines {
  readonly #reader: Interface;
  #waiting: ((line: string | undefined) => void) | undefined;
  #ended = false;

  /**
   * Reads from the start, not from the first question: what is typed meanwhile must be read
   * and dropped, or the terminal would keep it and hand it to the first question as its answer.
   */
  constructor(input: NodeJS.ReadableStream) {
    const reader = createInterface({ input, terminal: false });
    reader.on("line", (line) => this.#waiting?.(line));
    reader.on("close", () => {
      this.#ended = true;
      this.#waiting?.(undefined);
    });
    this.#reader = reader;
  }

  /** The next line, or undefined when input ended (Ctrl-D); rejects with the reason when `signal` aborts. */
  next(signal: AbortSignal): Promise<string | undefined> {
    if (signal.aborted) return Promise.reject(signal.reason);
    if (this.#ended) return Promise.resolve(undefined);
    return new Promise((resolve, reject) => {
      const abandon = () => {
        this.#waiting = undefined;
        reject(signal.reason);
      };
      signal.addEventListener("abort", abandon, { once: true });
      this.#waiting = (line) => {
        signal.removeEventListener("abort", abandon);
        this.#waiting = undefined;
        resolve(line);
      };
    });
  }

  /** Stops reading, so the terminal no longer holds the process open. */
  close(): void {
    this.#reader.close();
  }
}
