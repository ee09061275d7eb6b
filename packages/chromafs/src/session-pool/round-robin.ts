/**
 * Whose turn it is: keys wait in a line, and `take` hands out the first one that can go now,
 * so a key with many waiting items gets one turn per round like every other key. A pool worker
 * keeps one line of its sessions with commands waiting.
 */
export class RoundRobin<Key> {
  private readonly line: Key[] = [];

  get size(): number {
    return this.line.length;
  }

  /** Joins the back of the line (no effect if already in it). */
  add(key: Key): void {
    if (!this.line.includes(key)) this.line.push(key);
  }

  remove(key: Key): void {
    const at = this.line.indexOf(key);
    if (at >= 0) this.line.splice(at, 1);
  }

  /** The first key `canGo` accepts, taken out of the line; the caller adds it back if it has more. */
  take(canGo: (key: Key) => boolean): Key | undefined {
    const at = this.line.findIndex(canGo);
    if (at < 0) return undefined;
    return this.line.splice(at, 1)[0];
  }
}
