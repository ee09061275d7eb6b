/**
 * A least-recently-used cache of texts (whole pages by key, or chunks by id) bounded by their
 * size, plus the fetches in flight. A text larger than the whole budget is never kept (it is
 * returned to the reader and dropped).
 */
export class LruTextCache {
  /** Fetches under way, so concurrent readers of one text (any session) share one store call. */
  readonly inflight = new Map<string, Promise<string | undefined>>();
  private readonly maxBytes: number;
  private readonly texts = new Map<string, { text: string; bytes: number }>();
  private usedBytes = 0;

  constructor(maxBytes: number) {
    this.maxBytes = maxBytes;
  }

  get(key: string): string | undefined {
    const entry = this.texts.get(key);
    if (!entry) return undefined;
    // Re-insert so Map order stays least-recent first.
    this.texts.delete(key);
    this.texts.set(key, entry);
    return entry.text;
  }

  has(key: string): boolean {
    return this.texts.has(key);
  }

  set(key: string, text: string, bytes: number): void {
    const existing = this.texts.get(key);
    if (existing) {
      this.texts.delete(key);
      this.usedBytes -= existing.bytes;
    }
    if (bytes > this.maxBytes) return;
    this.texts.set(key, { text, bytes });
    this.usedBytes += bytes;
    for (const [oldest, entry] of this.texts) {
      if (this.usedBytes <= this.maxBytes) break;
      this.texts.delete(oldest);
      this.usedBytes -= entry.bytes;
    }
  }

  get size(): number {
    return this.usedBytes;
  }
}
