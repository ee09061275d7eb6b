import type { Access, DocStore } from "../doc-store/doc-store.js";
import { PAGE_FETCH_BATCH } from "../tuning.js";
import type { PageCache } from "./page-cache.js";
import { PosixError } from "./posix-error.js";

/**
 * Where a session's page texts come from: an LRU cache (shared by the store's sessions unless the
 * session asked for its own), else the store (concurrent reads of one page share one fetch).
 * Every fetch carries the session's access, so the store filters too.
 */
export class PageSource {
  private readonly store: DocStore;
  private readonly access: Access;
  private readonly cache: PageCache;
  /** Store round trips made, for tests and the benchmark. */
  fetches = 0;

  constructor(store: DocStore, access: Access, cache: PageCache) {
    this.store = store;
    this.access = access;
    this.cache = cache;
  }

  async read(path: string): Promise<string> {
    const cached = this.cache.get(path);
    if (cached !== undefined) return cached;
    const text = await (this.cache.inflight.get(path) ?? this.fetch([path]).get(path));
    if (text === undefined) throw new PosixError("ENOENT", "open", path);
    return text;
  }

  /** Loads the given pages in few store calls (grep calls this with its candidate files). */
  async prefetch(paths: readonly string[]): Promise<void> {
    const missing = paths.filter((path) => !this.cache.has(path) && !this.cache.inflight.has(path));
    const waits: Promise<unknown>[] = [];
    for (let i = 0; i < missing.length; i += PAGE_FETCH_BATCH) {
      waits.push(...this.fetch(missing.slice(i, i + PAGE_FETCH_BATCH)).values());
    }
    await Promise.all(waits);
  }

  private fetch(paths: readonly string[]): Map<string, Promise<string | undefined>> {
    this.fetches++;
    const batch = this.store.readPages(paths, this.access);
    const result = new Map<string, Promise<string | undefined>>();
    for (const path of paths) {
      const one = batch.then((pages) => {
        const text = pages.get(path);
        if (text !== undefined) this.cache.set(path, text, Buffer.byteLength(text));
        return text;
      });
      // Only this fetch's own entry is removed: a later fetch of the same path may have replaced it.
      one
        .finally(() => {
          if (this.cache.inflight.get(path) === one) this.cache.inflight.delete(path);
        })
        .catch(() => {});
      this.cache.inflight.set(path, one);
      result.set(path, one);
    }
    return result;
  }
}
