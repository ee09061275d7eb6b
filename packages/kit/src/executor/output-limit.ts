/**
 * Printed output as the model reads it, the same in every executor: at most `maxOutputChars`
 * characters (20,000 by default); past that the first and last halves are kept with a note of
 * how many characters were dropped between them, so both how the output began and how it ended
 * stay visible.
 */
export const DEFAULT_MAX_OUTPUT_CHARS = 20_000;

/** The note that stands where output was dropped. */
export function outputCutNote(cut: number): string {
  return `\n… [${cut} characters of output cut] …\n`;
}

/**
 * `text` bounded to `maxChars` (plus the note). `cut` says how many characters a sandbox already
 * dropped after the first half of `text` (a sandbox that keeps head and tail itself sends both
 * and that count); a sandbox is not trusted to have kept within the bound, so `text` is cut
 * again where it is longer.
 */
export function boundOutput(text: string, maxChars: number, cut = 0): string {
  if (text.length <= maxChars && cut <= 0) return text;
  const headChars = Math.ceil(maxChars / 2);
  const tailChars = Math.floor(maxChars / 2);
  const head = text.slice(0, headChars);
  const rest = text.slice(headChars);
  const tail = rest.length > tailChars ? (tailChars > 0 ? rest.slice(-tailChars) : "") : rest;
  return `${head}${outputCutNote(Math.max(0, cut) + rest.length - tail.length)}${tail}`;
}

/**
 * Printed output of one run, kept within `maxChars` while it is written (a run may print far
 * more than it keeps): the first half as it comes, and a tail that keeps the last half.
 */
export class OutputBuffer {
  private head = "";
  private tail: string[] = [];
  private tailLength = 0;
  private total = 0;
  private readonly headLimit: number;
  private readonly tailLimit: number;

  constructor(readonly maxChars: number) {
    this.headLimit = Math.ceil(maxChars / 2);
    this.tailLimit = Math.floor(maxChars / 2);
  }

  /** Characters printed so far, kept or not. */
  get printed(): number {
    return this.total;
  }

  append(text: string): void {
    this.total += text.length;
    let rest = text;
    if (this.head.length < this.headLimit) {
      const room = this.headLimit - this.head.length;
      this.head += rest.slice(0, room);
      rest = rest.slice(room);
    }
    if (!rest) return;
    this.tail.push(rest);
    this.tailLength += rest.length;
    if (this.tailLength > 2 * this.tailLimit + 1024) this.compactTail();
  }

  toString(): string {
    this.compactTail();
    const tail = this.tail.join("");
    return boundOutput(this.head + tail, this.maxChars, this.total - this.head.length - this.tailLength);
  }

  private compactTail(): void {
    const joined = this.tail.join("");
    const kept = this.tailLimit > 0 ? joined.slice(-this.tailLimit) : "";
    this.tail = kept ? [kept] : [];
    this.tailLength = kept.length;
  }
}
