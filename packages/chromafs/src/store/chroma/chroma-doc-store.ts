import type { ChromaClient } from "@atrium/chroma";
import type { Embedding } from "@atrium/spec";
import {
  type ChromaTarget,
  defaultEmbedding,
  openDocsCollection,
  resolveClient,
} from "../../collection-schema/docs-collection.js";
import { loadChroma } from "../../collection-schema/load-chroma.js";
import type { Access, DocStore, PageChunk, SearchHit, TextFilter } from "../../doc-store/doc-store.js";
import type { SearchOptions } from "../../doc-store/search-ranking.js";
import { resolveChromafsLimits } from "../../limits.js";
import type { PathTree } from "../../tree/path-tree.js";
import { searchChroma } from "./chroma-search.js";
import { type FilterParts, findChunks, findPages } from "./chunk-filters.js";
import { ChromaConnection, type FollowedServer } from "./connection.js";
import { GrepCache } from "./grep-cache.js";
import { readPages } from "./page-reads.js";
import { TreeSnapshots } from "./tree-snapshot.js";

export type { FollowedServer } from "./connection.js";

export type ChromaDocStoreOptions = ChromaTarget & {
  collection: string;
  /** Must be the embedding the collection was ingested with; default the offline hashing one. */
  embedding?: Embedding;
  /**
   * The embedded server `url` came from (`startChromaServer`'s answer). When the store cannot
   * reach it, the store asks the server where it is now (`refresh()`: a reuser re-reads the
   * shared record) and, if a restart moved it to another port, reconnects there.
   */
  server?: FollowedServer;
  /** Bytes of chunk text kept for grep across sessions (default `maxStoreChunkCacheBytes`). */
  maxChunkCacheBytes?: number;
  /** How stale grep's cached path may be, at most (default `storeTreeRecheckMs`; 0: never). */
  treeRecheckMs?: number;
};

/**
 * The DocStore over a Chroma collection written by `ingestDocs`. Its parts, each in its own
 * module: the connection that follows a moved server (`connection.ts`), the tree snapshot every
 * answer is checked against (`tree-snapshot.ts`), page reads (`page-reads.ts`), the grep index
 * and chunk cache (`grep-cache.ts`), text filters on the server (`chunk-filters.ts`), search
 * (`chroma-search.ts`) and the access `where` clauses (`access-where.ts`).
 *
 * Access is enforced twice. Every query carries a filter for the caller's groups, so hidden
 * chunks never leave the server — page reads ask for the chunk ids of visible pages only, and
 * text filters and searches carry the page list the tree hides (`page $nin [...]`, or
 * `page $in [visible]` when that is shorter), because the pinned server evaluates those several
 * times faster than the per-group boolean keys every chunk also carries (used beyond
 * ACCESS_LIST_MAX_PATHS). And every chunk that comes back is checked against the tree: its page
 * must be listed, visible, and at the chunk's revision. A revision the tree doesn't know means a
 * re-ingest happened (possibly changing access), so the tree is re-read before answering.
 */
export class ChromaDocStore implements DocStore {
  private readonly parts: FilterParts;

  private constructor(
    private readonly connection: ChromaConnection,
    private readonly maxChunkCacheBytes: number,
    private readonly treeRecheckMs: number,
  ) {
    const snapshots = new TreeSnapshots(connection, treeRecheckMs);
    this.parts = { connection, snapshots, grep: new GrepCache(connection, snapshots, maxChunkCacheBytes) };
  }

  static async open(options: ChromaDocStoreOptions): Promise<ChromaDocStore> {
    // Loaded even for a client passed in, so a ChromaDocStore implies a loaded module (storeRecipeOf).
    await loadChroma();
    const client: ChromaClient = await resolveClient(options);
    const embedding = options.embedding ?? (await defaultEmbedding());
    const collection = await openDocsCollection(client, options.collection, embedding, { create: false });
    // 0 is allowed here (every command reads the digest), not as a package-wide limit.
    const recheck = options.treeRecheckMs === 0 ? undefined : options.treeRecheckMs;
    const limits = resolveChromafsLimits({
      maxStoreChunkCacheBytes: options.maxChunkCacheBytes,
      storeTreeRecheckMs: recheck,
    });
    return new ChromaDocStore(
      new ChromaConnection(collection, client, options.url, embedding, options.server),
      limits.maxStoreChunkCacheBytes,
      options.treeRecheckMs === 0 ? 0 : limits.storeTreeRecheckMs,
    );
  }

  get description(): string {
    return this.connection.description;
  }

  /**
   * What another thread needs to open its own client of this store (a `SessionWorkerPool`
   * worker): where it is now, the collection, the embedding's id (a `resolveEmbedding` spec)
   * and the server to follow. Undefined for a store opened on a client object.
   */
  reopening():
    | {
        url: string;
        collection: string;
        embedding: string;
        server?: FollowedServer;
        treeRecheckMs: number;
        maxChunkCacheBytes: number;
      }
    | undefined {
    const { url, collection, embedding, server } = this.connection;
    if (url === undefined) return undefined;
    return {
      url,
      collection: collection.name,
      embedding: embedding.id,
      server,
      treeRecheckMs: this.treeRecheckMs,
      maxChunkCacheBytes: this.maxChunkCacheBytes,
    };
  }

  readTree(): Promise<PathTree> {
    return this.connection.reachable(async () => (await this.parts.snapshots.reload()).tree);
  }

  readPages(paths: readonly string[], access: Access): Promise<Map<string, string>> {
    return this.connection.reachable(() => readPages(this.connection, this.parts.snapshots, paths, access));
  }

  findPages(filter: TextFilter, access: Access, within?: readonly string[]): Promise<string[]> {
    return this.connection.reachable(() => findPages(this.parts, filter, access, within));
  }

  findChunks(
    filter: TextFilter,
    access: Access,
    within?: readonly string[],
  ): Promise<Map<string, PageChunk[]> | null> {
    return this.connection.reachable(() => findChunks(this.parts, filter, access, within));
  }

  search(query: string, access: Access, limit: number, options: SearchOptions = {}): Promise<SearchHit[]> {
    return this.connection.reachable(() => searchChroma(this.parts, query, access, limit, options));
  }
}
