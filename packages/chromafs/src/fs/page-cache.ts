/**
 * A least-recently-used cache of page texts bounded by their UTF-8 size, plus the fetches in
 * flight. A page larger than the
 * whole budget is never kept (it is returned to the reader and dropped).
 */
export class PageCache {
  /** Fetches under way, so concurrent readers of one page (any session) share one store call. */
  readonly inflight = new Map<string, Promise<string | undefined>>();
  private readonly maxBytes: number;
  private readonly pages = new Map<string, { text: string; bytes: number }>();
  private usedBytes = 0;

  constructor(maxBytes: number) {
    this.maxBytes = maxBytes;
  }

  get(path: string): string | undefined {
    const entry = this.pages.get(path);
    if (!entry) return undefined;
    // Re-insert so Map order stays least-recent first.
    this.pages.delete(path);
    this.pages.set(path, entry);
    return entry.text;
  }

  has(path: string): boolean {
    return this.pages.has(path);
  }

  set(path: string, text: string, bytes: number): void {
    const existing = this.pages.get(path);
    if (existing) {
      this.pages.delete(path);
      this.usedBytes -= existing.bytes;
    }
    if (bytes > this.maxBytes) return;
    this.pages.set(path, { text, bytes });
    this.usedBytes += bytes;
    for (const [oldest, entry] of this.pages) {
      if (this.usedBytes <= this.maxBytes) break;
      this.pages.delete(oldest);
      this.usedBytes -= entry.bytes;
    }
  }

  get size(): number {
    return this.usedBytes;
  }
}
