import { accessKey, pruneTree } from "../access/visibility.js";
import type { Access, DocStore } from "../doc-store/doc-store.js";
import { DEFAULT_CHROMAFS_LIMITS, resolveChromafsLimits } from "../limits.js";
import type { PathTree } from "../tree/path-tree.js";
import { PageCache } from "./page-cache.js";
import { TreeIndex } from "./tree-index.js";

/**
 * The tree is fetched once per store and shared by every session; each distinct set of groups
 * gets one pruned `TreeIndex`, built on first use. `refresh()` drops all (tree, indexes, pages)
 * after a re-ingest.
 * A failed fetch is not cached, so the next session retries instead of inheriting the error.
 */
export class TreeCache {
  readonly store: DocStore;
  /**
   * Page texts shared by every session of this store. Safe across groups because a session only
   * reads a page after its own pruned tree showed it; refreshed together with the tree.
   */
  pages: PageCache;
  private tree: Promise<PathTree> | undefined;
  private readonly indexes = new Map<string, TreeIndex>();

  constructor(store: DocStore, pageCacheBytes = DEFAULT_CHROMAFS_LIMITS.maxSharedPageCacheBytes) {
    this.store = store;
    this.pageCacheBytes = resolveChromafsLimits({
      maxSharedPageCacheBytes: pageCacheBytes,
    }).maxSharedPageCacheBytes;
    this.pages = new PageCache(this.pageCacheBytes);
  }

  private readonly pageCacheBytes: number;

  /** The unpruned tree (fetched on first call). */
  fullTree(): Promise<PathTree> {
    if (!this.tree) {
      const pending = this.store.readTree();
      this.tree = pending;
      pending.catch(() => {
        if (this.tree === pending) this.tree = undefined;
      });
    }
    return this.tree;
  }

  /** The tree as `access` sees it, indexed; shared by every session with the same groups. */
  async index(access: Access): Promise<TreeIndex> {
    const key = accessKey(access);
    const cached = this.indexes.get(key);
    if (cached) return cached;
    const tree = await this.fullTree();
    const built = this.indexes.get(key) ?? new TreeIndex(pruneTree(tree, access));
    this.indexes.set(key, built);
    return built;
  }

  /** The synchronous fast path: the index when it is already built, else undefined. */
  peek(access: Access): TreeIndex | undefined {
    return this.indexes.get(accessKey(access));
  }

  /** Forget the tree and every pruned index; the next session fetches the tree again. */
  refresh(): void {
    this.tree = undefined;
    this.indexes.clear();
    this.pages = new PageCache(this.pageCacheBytes);
  }
}

const cachesByStore = new WeakMap<DocStore, TreeCache>();

/** The one shared cache of a store (sessions opened without an explicit cache use this). */
export function treeCacheFor(store: DocStore): TreeCache {
  let cache = cachesByStore.get(store);
  if (!cache) {
    cache = new TreeCache(store);
    cachesByStore.set(store, cache);
  }
  return cache;
}
