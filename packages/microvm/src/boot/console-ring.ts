/**
 * The last bytes of the guest's console. A guest that panics or whose agent dies says why on the
 * console; errors quote the tail. Bounded: a chatty guest cannot grow the host's memory.
 */
export class ConsoleRing {
  private chunks: Buffer[] = [];
  private length = 0;

  constructor(private readonly maxBytes: number) {}

  push(chunk: Buffer): void {
    this.chunks.push(chunk);
    this.length += chunk.byteLength;
    while (this.length > this.maxBytes && this.chunks.length > 1) {
      this.length -= (this.chunks.shift() as Buffer).byteLength;
    }
  }

  text(): string {
    const all = Buffer.concat(this.chunks);
    return all.subarray(Math.max(0, all.byteLength - this.maxBytes)).toString("utf8");
  }

  /** The last `lines` non-empty lines, without terminal control characters. */
  tail(lines = 25): string {
    return this.text()
      .replace(/\x1b\[[0-9;?]*[a-zA-Z]/g, "")
      .replace(/\r/g, "")
      .split("\n")
      .filter((line) => line.trim() !== "")
      .slice(-lines)
      .join("\n");
  }
}
