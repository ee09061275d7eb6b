/**
 * Printed output of one run, bounded: past `maxChars` it keeps the first and last halves and
 * says how much was cut in between, so the model sees both how output began and how it ended.
 */
export class LogBuffer {
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
    const kept = this.head.length + this.tailLength;
    const tail = this.tail.join("");
    if (kept >= this.total) return this.head + tail;
    return `${this.head}\n… [${this.total - kept} characters of output cut] …\n${tail}`;
  }

  private compactTail(): void {
    const joined = this.tail.join("");
    const kept = this.tailLimit > 0 ? joined.slice(-this.tailLimit) : "";
    this.tail = kept ? [kept] : [];
    this.tailLength = kept.length;
  }
}
