import { stripVTControlCharacters } from "node:util";
import { DEFAULT_CHROMA_LIMITS } from "../limits.js";

/**
 * The last lines a child process printed, bounded in count and width so a chatty or hostile
 * server can't grow the host's memory. Colour codes are stripped: these lines end up in errors.
 */
export class LogRing {
  private readonly lines: string[] = [];
  private partial = "";

  constructor(private readonly capacity = DEFAULT_CHROMA_LIMITS.maxServerLogLines) {}

  push(chunk: string): void {
    const parts = (this.partial + chunk).split("\n");
    this.partial = parts.pop() ?? "";
    for (const line of parts) this.add(line);
    // After the complete lines before it, so the ring keeps the order the server printed.
    if (this.partial.length > DEFAULT_CHROMA_LIMITS.maxServerLogLineChars) {
      this.add(this.partial);
      this.partial = "";
    }
  }

  /** Kept lines, oldest first, including an unterminated last line. */
  snapshot(): string[] {
    return this.partial ? [...this.lines, this.clean(this.partial)] : [...this.lines];
  }

  text(): string {
    return this.snapshot().join("\n");
  }

  private add(line: string): void {
    this.lines.push(this.clean(line));
    if (this.lines.length > this.capacity) this.lines.splice(0, this.lines.length - this.capacity);
  }

  private clean(line: string): string {
    const plain = stripVTControlCharacters(line).replace(/\r$/, "");
    return plain.length > DEFAULT_CHROMA_LIMITS.maxServerLogLineChars
      ? `${plain.slice(0, DEFAULT_CHROMA_LIMITS.maxServerLogLineChars)}…`
      : plain;
  }
}
