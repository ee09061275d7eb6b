import type { ChromaClient, Collection, Metadata, Where, WhereDocument } from "@atrium/chroma";
import { type Embedding, rethrowIfFatal } from "@atrium/spec";
import { groupKey, PUBLIC_KEY } from "../../collection-schema/access-keys.js";
import {
  type ChromaTarget,
  defaultEmbedding,
  openDocsCollection,
  resolveClient,
  TREE_DIGEST_METADATA_KEY,
} from "../../collection-schema/docs-collection.js";
import { documentsById } from "../../collection-schema/documents-by-id.js";
import { loadChroma, loadedChroma } from "../../collection-schema/load-chroma.js";
import {
  chunkId,
  chunksCarryLines,
  pageRevision,
  parseChunkId,
} from "../../collection-schema/page-revision.js";
import { readStoredTree } from "../../collection-schema/stored-tree.js";
import type { Access, DocStore, PageChunk, SearchHit, TextFilter } from "../../doc-store/doc-store.js";
import { regexLiteral } from "../../doc-store/regex-literal.js";
import type { SearchOptions } from "../../doc-store/search-ranking.js";
import { filterLiterals } from "../../doc-store/text-filter-matcher.js";
import { DocStoreError, PathTreeError, StoreUnavailableError } from "../../errors.js";
import { digestOfTree } from "../../grep/index/index-tree.js";
import {
  type IndexedChunk,
  indexedCandidates,
  type LoadedGrepIndex,
  literalTest,
  loadGrepIndex,
} from "../../grep/index/indexed-grep.js";
import { DEFAULT_CHROMAFS_LIMITS, resolveChromafsLimits } from "../../limits.js";
import { rankSearch } from "../../search/rank-search.js";
import { LruTextCache } from "../../text-cache/lru-text-cache.js";
import { PATH_TREE_ID, type PathTree, type PathTreeFile, type StoredPathTree } from "../../tree/path-tree.js";
import {
  ACCESS_LIST_MAX_PATHS,
  SEARCH_HASHING_VECTOR_WEIGHT,
  SEARCH_NEURAL_VECTOR_WEIGHT,
} from "../../tuning.js";
import { chromaSearchSource } from "./chroma-search-source.js";
import { unreachableReason } from "./connection.js";

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
  /** Bytes of chunk text kept for grep across sessions (default `storeChunkCacheMaxBytes`). */
  chunkCacheMaxBytes?: number;
  /** How stale grep's cached path may be, at most (default `storeTreeRecheckMs`; 0: never). */
  treeRecheckMs?: number;
};

/** What the store needs of an embedded server to follow it across restarts. */
export interface FollowedServer {
  /** Where the server answers now. */
  readonly url: string;
  /** Looks again where the server is (a reuser re-reads the shared record). */
  refresh?(): Promise<unknown>;
}

/** The tree as last read, with each page's chunk revision (which chunk ids are current). */
interface TreeSnapshot {
  tree: StoredPathTree;
  revisions: Map<string, string>;
  /** `page#revision` of chunks seen that this tree doesn't point at. */
  leftovers: Set<string>;
  /** The collection's grep index checked against this tree (loaded on the first grep). */
  grepIndex?: Promise<LoadedGrepIndex | null>;
  /** `digestOfTree` of this tree, once computed. */
  digest?: string;
}

interface ChunkRow {
  page: string;
  index: number;
  text: string;
  /** The leg's own score (BM25, or cosine similarity) where it comes from a search leg. */
  score?: number;
  metadata?: Metadata;
}

/** Above this many paths, `within` is applied to the answer rather than sent as a filter. */
const WITHIN_AS_FILTER_MAX_PATHS = 200;

/**
 * The DocStore over a Chroma collection written by `ingestDocs`.
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
  /** Weight of the vector leg in search fusion (SEARCH_HASHING_VECTOR_WEIGHT or the neural one). */
  private readonly semanticWeight: number;
  private snapshot: TreeSnapshot | undefined;
  private loading: Promise<TreeSnapshot> | undefined;
  /** The read of the collection's tree digest under way, and the last answer (see `isCurrent`). */
  private treeDigestRead: Promise<{ id: string; digest: unknown; at: number }> | undefined;
  private treeDigestSeen: { id: string; digest: unknown; at: number } | undefined;
  /** Chunk texts grep read, by chunk id (ids name the page revision, so entries never go stale). */
  private readonly chunkTexts: LruTextCache;

  private constructor(
    private collection: Collection,
    private readonly embedding: Embedding,
    private client: ChromaClient,
    private url: string | undefined,
    private readonly server: FollowedServer | undefined,
    private readonly chunkCacheMaxBytes: number,
    private readonly treeRecheckMs: number,
  ) {
    this.chunkTexts = new LruTextCache(chunkCacheMaxBytes);
    this.semanticWeight = embedding.id.startsWith("hashing-")
      ? SEARCH_HASHING_VECTOR_WEIGHT
      : SEARCH_NEURAL_VECTOR_WEIGHT;
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
      storeChunkCacheMaxBytes: options.chunkCacheMaxBytes,
      storeTreeRecheckMs: recheck,
    });
    return new ChromaDocStore(
      collection,
      embedding,
      client,
      options.url,
      options.server,
      limits.storeChunkCacheMaxBytes,
      options.treeRecheckMs === 0 ? 0 : limits.storeTreeRecheckMs,
    );
  }

  get description(): string {
    return `chroma ${this.url ?? "(client)"} collection ${this.collection.name}`;
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
        chunkCacheMaxBytes: number;
      }
    | undefined {
    if (this.url === undefined) return undefined;
    return {
      url: this.url,
      collection: this.collection.name,
      embedding: this.embedding.id,
      server: this.server,
      treeRecheckMs: this.treeRecheckMs,
      chunkCacheMaxBytes: this.chunkCacheMaxBytes,
    };
  }

  readTree(): Promise<PathTree> {
    return this.reachable(async () => (await this.reloadTree()).tree);
  }

  readPages(paths: readonly string[], access: Access): Promise<Map<string, string>> {
    return this.reachable(() => this.readPagesNow(paths, access));
  }

  findPages(filter: TextFilter, access: Access, within?: readonly string[]): Promise<string[]> {
    return this.reachable(() => this.findPagesNow(filter, access, within));
  }

  findChunks(
    filter: TextFilter,
    access: Access,
    within?: readonly string[],
  ): Promise<Map<string, PageChunk[]> | null> {
    return this.reachable(() => this.findChunksNow(filter, access, within));
  }

  search(query: string, access: Access, limit: number, options: SearchOptions = {}): Promise<SearchHit[]> {
    return this.reachable(() => this.searchNow(query, access, limit, options));
  }

  /**
   * Runs a store call; a server that does not answer is a `StoreUnavailableError` naming the
   * store (never an empty answer, never chromadb's generic fetch text). A followed server that
   * came back elsewhere is reconnected to and the call made once more.
   */
  private async reachable<T>(call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (error) {
      const reason = unreachableReason(error);
      if (reason === undefined) throw error;
      if (!(await this.followServer())) throw this.unavailable(reason, error);
      try {
        return await call();
      } catch (retryError) {
        const again = unreachableReason(retryError);
        throw again === undefined ? retryError : this.unavailable(again, retryError);
      }
    }
  }

  private unavailable(reason: string, cause: unknown): StoreUnavailableError {
    const where = this.url ? `Chroma at ${this.url}` : "Chroma";
    return new StoreUnavailableError(`${where}, collection ${this.collection.name}`, reason, { cause });
  }

  /** True when the followed server now answers at another URL and the store reconnected there. */
  private async followServer(): Promise<boolean> {
    const server = this.server;
    if (!server) return false;
    const chroma = await loadChroma();
    try {
      await server.refresh?.();
      const url = server.url;
      if (url === this.url) return false;
      const client = await chroma.connectChroma(url);
      this.collection = await openDocsCollection(client, this.collection.name, this.embedding, {
        create: false,
      });
      this.client = client;
      this.url = url;
      return true;
    } catch (error) {
      rethrowIfFatal(error instanceof chroma.ChromaUnreachableError ? undefined : error);
      return false;
    }
  }

  private async readPagesNow(paths: readonly string[], access: Access): Promise<Map<string, string>> {
    const wanted = [...new Set(paths)];
    let snapshot = await this.currentTree();
    let pages = await this.fetchPages(snapshot, wanted, access);
    const incomplete = wanted.filter((path) => pages.get(path) === null);
    if (incomplete.length > 0) {
      snapshot = await this.reloadTree();
      const retried = await this.fetchPages(snapshot, incomplete, access);
      pages = new Map([...pages, ...retried]);
    }
    const result = new Map<string, string>();
    for (const [path, text] of pages) {
      if (text === null) {
        throw new DocStoreError(
          `${this.description}: the chunks of ${path} are missing; re-run ingest for this collection`,
        );
      }
      result.set(path, text);
    }
    return result;
  }

  private async findPagesNow(
    filter: TextFilter,
    access: Access,
    within?: readonly string[],
  ): Promise<string[]> {
    const indexed = await this.indexedMatches(filter, access, within);
    if (indexed) return [...new Set(indexed.map((chunk) => chunk.page))];
    const found = await this.matchingChunks(filter, access, within, false);
    if ("everyVisible" in found) return found.everyVisible;
    return [...new Set(found.rows.map((row) => row.page))].sort();
  }

  private async findChunksNow(
    filter: TextFilter,
    access: Access,
    within?: readonly string[],
  ): Promise<Map<string, PageChunk[]> | null> {
    // Chunks cut before they carried `line` (chunker 1) can't be placed in their page.
    if (!chunksCarryLines((await this.currentTree()).tree.chunking)) return null;
    const indexed = await this.indexedMatches(filter, access, within);
    if (indexed) {
      const pages = new Map<string, PageChunk[]>();
      for (const { page, index, line, text } of indexed) {
        const chunks = pages.get(page);
        if (chunks) chunks.push({ index, line, text });
        else pages.set(page, [{ index, line, text }]);
      }
      return pages;
    }
    const found = await this.matchingChunks(filter, access, within, true);
    if ("everyVisible" in found) return null;
    const pages = new Map<string, PageChunk[]>();
    for (const row of found.rows) {
      const line = row.metadata?.line;
      // A damaged chunk without a usable line: grep reads whole pages instead.
      if (typeof line !== "number" || !Number.isSafeInteger(line) || line < 1) return null;
      const chunks = pages.get(row.page) ?? [];
      chunks.push({ index: row.index, line, text: row.text });
      pages.set(row.page, chunks);
    }
    for (const chunks of pages.values()) chunks.sort((a, b) => a.index - b.index);
    return new Map([...pages].sort(([a], [b]) => (a < b ? -1 : 1)));
  }

  /**
   * The visible chunks holding the filter's literal (or one of a regex's `literals`: a superset
   * of the regex's chunks), in page (sorted) then chunk order, found with the collection's grep
   * index and read from the store's chunk cache (the misses in one round trip by id): no text
   * query runs on the server. Undefined when the index can't answer (none, built for another
   * tree, a regex without literals, a chunk gone from the server): the caller asks the server.
   */
  private async indexedMatches(
    filter: TextFilter,
    access: Access,
    within: readonly string[] | undefined,
  ): Promise<(IndexedChunk & { text: string })[] | undefined> {
    if (!filterLiterals(filter)) return undefined;
    const snapshot = await this.currentTree();
    const loaded = await this.grepIndexOf(snapshot);
    if (!loaded) return undefined;
    // The texts may all come from the cache, so nothing else would notice a re-ingest (a page
    // changed, or restricted): the collection's tree digest, one small read made meanwhile, says
    // whether this tree is still current before anything is answered from it.
    const current = this.isCurrent(snapshot);
    current.catch(() => undefined);
    const answer = await this.indexedAnswer(snapshot, loaded, filter, access, within);
    if (await current) return answer;
    await this.reloadTree();
    return undefined;
  }

  private async indexedAnswer(
    snapshot: TreeSnapshot,
    loaded: LoadedGrepIndex,
    filter: TextFilter,
    access: Access,
    within: readonly string[] | undefined,
  ): Promise<(IndexedChunk & { text: string })[] | undefined> {
    const scope = within ? new Set(within) : undefined;
    const candidates = indexedCandidates(
      loaded,
      filter,
      (path) => (!scope || scope.has(path)) && isVisibleIn(snapshot, path, access),
    );
    if (!candidates) return undefined;
    const texts = await this.chunkTextsOf(
      candidates.map((chunk) =>
        chunkId(chunk.page, snapshot.revisions.get(chunk.page) as string, chunk.index),
      ),
    );
    if (!texts) return undefined;
    const holds = literalTest(filter);
    return candidates
      .map((chunk, row) => ({ ...chunk, text: texts[row] as string }))
      .filter((chunk) => holds(chunk.text));
  }

  /**
   * Whether the collection's tree is still the one `snapshot` read: same collection (a rebuild
   * swaps in another) and tree digest (false for a collection ingested before digests). The
   * server is asked at most once per `treeRecheckMs`: a command within that time of the last
   * answer trusts it (so a re-ingest reaches grep's cached path within that time), and commands
   * running at once share one read.
   */
  private async isCurrent(snapshot: TreeSnapshot): Promise<boolean> {
    snapshot.digest ??= digestOfTree(snapshot.tree, snapshot.revisions);
    const recent = this.treeDigestSeen;
    if (recent && performance.now() - recent.at < this.treeRecheckMs) return this.matches(recent, snapshot);
    if (!this.treeDigestRead) {
      const reading = this.readTreeDigest().then((seen) => {
        this.treeDigestSeen = seen;
        return seen;
      });
      this.treeDigestRead = reading;
      reading
        .finally(() => {
          if (this.treeDigestRead === reading) this.treeDigestRead = undefined;
        })
        .catch(() => undefined);
    }
    return this.matches(await this.treeDigestRead, snapshot);
  }

  private matches(seen: { id: string; digest: unknown }, snapshot: TreeSnapshot): boolean {
    return seen.id === this.collection.id && seen.digest === snapshot.digest;
  }

  /** The collection's id and tree digest as the server has them now, and when they were read. */
  private async readTreeDigest(): Promise<{ id: string; digest: unknown; at: number }> {
    const at = performance.now();
    const now = await this.client.getCollection({ name: this.collection.name });
    return { id: now.id, digest: now.metadata?.[TREE_DIGEST_METADATA_KEY], at };
  }

  private grepIndexOf(snapshot: TreeSnapshot): Promise<LoadedGrepIndex | null> {
    if (!snapshot.grepIndex) {
      const loading = loadGrepIndex(
        this.collection,
        snapshot.tree,
        snapshot.revisions,
        DEFAULT_CHROMAFS_LIMITS.grepIndexMaxBytes,
      );
      snapshot.grepIndex = loading;
      // A failed read (server away) is not remembered: the next grep tries again.
      loading.catch(() => {
        if (snapshot.grepIndex === loading) snapshot.grepIndex = undefined;
      });
    }
    return snapshot.grepIndex;
  }

  /**
   * Chunk texts by id from the chunk cache, the misses fetched by id; undefined when the server
   * lacks one of them (the tree changed under it).
   */
  private async chunkTextsOf(ids: readonly string[]): Promise<string[] | undefined> {
    const fetched = await documentsById(
      this.collection,
      ids.filter((id) => !this.chunkTexts.has(id)),
    );
    for (const [id, text] of fetched) this.chunkTexts.set(id, text, Buffer.byteLength(text));
    const texts: string[] = [];
    for (const id of ids) {
      const text = fetched.get(id) ?? this.chunkTexts.get(id);
      if (text === undefined) return undefined;
      texts.push(text);
    }
    return texts;
  }

  /**
   * The current, visible chunks that may match `filter` (with their texts and metadata when
   * `withTexts`), or every visible page in scope when the filter can't narrow anything.
   */
  private async matchingChunks(
    filter: TextFilter,
    access: Access,
    within: readonly string[] | undefined,
    withTexts: boolean,
  ): Promise<{ everyVisible: string[] } | { rows: ChunkRow[] }> {
    const snapshot = await this.currentTree();
    const scope = within ? within.filter((path) => isVisibleIn(snapshot, path, access)) : undefined;
    if (scope && scope.length === 0) return { rows: [] };
    const document = documentFilter(filter);
    const everyVisible = () => ({
      everyVisible: (scope ? [...new Set(scope)] : visiblePaths(snapshot, access)).sort(),
    });
    if (!document) return everyVisible();
    // A short `within` list is the cheapest filter there is; a long one (grep -r over most of
    // the tree) costs more than it saves, so the access filter runs and the scope is applied here.
    const inScope = scope ? new Set(scope) : undefined;
    const narrow = inScope && inScope.size <= WITHIN_AS_FILTER_MAX_PATHS;
    let result: { ids: string[]; documents: (string | null)[]; metadatas: (Metadata | null)[] };
    try {
      const where = narrow ? pathListWhere("$in", [...inScope]) : this.accessFilter(snapshot, access);
      result = await this.collection.get({
        where,
        whereDocument: document,
        include: withTexts ? ["documents", "metadatas"] : [],
      });
    } catch (error) {
      rethrowIfFatal(error);
      // A pattern the server's regex engine rejects can't narrow anything: every visible page is
      // a (correct) superset of the matches, and grep itself decides.
      if (isRejectedFilter(error)) return everyVisible();
      throw error;
    }
    const rows = result.ids.map((id, row) => ({
      id,
      text: result.documents[row] ?? "",
      metadata: result.metadatas[row] ?? undefined,
    }));
    const checked = await this.checkRows(rows, access);
    return { rows: inScope ? checked.filter((row) => inScope.has(row.page)) : checked };
  }

  /** The shared search (`rankSearch`) over this collection, as the caller may see it. */
  private async searchNow(
    query: string,
    access: Access,
    limit: number,
    options: SearchOptions,
  ): Promise<SearchHit[]> {
    const snapshot = await this.currentTree();
    const source = chromaSearchSource({
      collection: this.collection,
      embedding: this.embedding,
      where: this.accessFilter(snapshot, access),
      files: snapshot.tree.files,
      revision: (page) => snapshot.revisions.get(page),
      check: (rows) => this.checkRows(rows, access),
      chunksHoldingWords: (words) => this.indexedWordChunks(snapshot, access, words),
    });
    return rankSearch(query, source, { ranking: options.ranking, limit, vectorWeight: this.semanticWeight });
  }

  /**
   * For each word (letters, digits and `_` only), the ids of the visible chunks holding it
   * case-insensitively, from the grep index (exact for such words: a chunk holds the word exactly
   * when one of its own words contains it); null for another needle, or for all when there is no
   * current index: the server is asked for those.
   */
  private async indexedWordChunks(
    snapshot: TreeSnapshot,
    access: Access,
    needles: readonly string[],
  ): Promise<(string[] | null)[]> {
    const none = needles.map(() => null);
    const loaded = await this.grepIndexOf(snapshot);
    if (!loaded || !(await this.isCurrent(snapshot))) return none;
    return needles.map((needle) => {
      if (!/^[\p{L}\p{M}\p{N}_]+$/u.test(needle)) return null;
      const filter = { kind: "contains", text: needle, caseInsensitive: true } as const;
      const chunks = indexedCandidates(loaded, filter, (path) => isVisibleIn(snapshot, path, access));
      return (
        chunks?.map((chunk) =>
          chunkId(chunk.page, snapshot.revisions.get(chunk.page) as string, chunk.index),
        ) ?? null
      );
    });
  }

  /**
   * Keeps the rows whose chunk belongs to a visible page at the tree's revision. An unknown
   * revision of a listed page means the tree changed since it was read: re-read it first.
   */
  private async checkRows(
    rows: { id: string; text: string; metadata?: Metadata; score?: number }[],
    access: Access,
  ): Promise<ChunkRow[]> {
    let snapshot = await this.currentTree();
    const parsed = rows.map((row) => ({
      chunk: parseChunkId(row.id),
      text: row.text,
      metadata: row.metadata,
      score: row.score,
    }));
    const unknown = (tree: TreeSnapshot) =>
      parsed.filter(
        ({ chunk }) =>
          chunk &&
          tree.revisions.has(chunk.page) &&
          tree.revisions.get(chunk.page) !== chunk.revision &&
          !tree.leftovers.has(`${chunk.page}#${chunk.revision}`),
      );
    if (unknown(snapshot).length > 0) {
      snapshot = await this.reloadTree();
      // Revisions the fresh tree doesn't know either are leftovers (an ingest in progress, or one
      // that crashed): remember them, so they don't cost a tree read on every query.
      for (const { chunk } of unknown(snapshot)) snapshot.leftovers.add(`${chunk?.page}#${chunk?.revision}`);
    }
    const kept: ChunkRow[] = [];
    for (const { chunk, text, metadata, score } of parsed) {
      if (!chunk || snapshot.revisions.get(chunk.page) !== chunk.revision) continue;
      if (!isVisibleIn(snapshot, chunk.page, access)) continue;
      kept.push({
        page: chunk.page,
        index: chunk.index,
        text,
        metadata,
        ...(score !== undefined && { score }),
      });
    }
    return kept;
  }

  /** Texts of the visible pages among `paths`; null marks a page whose chunks are missing. */
  private async fetchPages(
    snapshot: TreeSnapshot,
    paths: string[],
    access: Access,
  ): Promise<Map<string, string | null>> {
    const visible = paths.filter((path) => isVisibleIn(snapshot, path, access));
    const ids = visible.flatMap((path) => {
      const file = snapshot.tree.files[path] as PathTreeFile;
      const revision = snapshot.revisions.get(path) as string;
      return Array.from({ length: file.chunks }, (_, index) => chunkId(path, revision, index));
    });
    // Only ids of pages the tree shows this caller are asked for: the request itself is the
    // access filter (a `where` on top would double the cost of the biggest query there is). A
    // chunk served without its document is missing, not empty: the page is then retried after a
    // tree re-read and reported, never assembled short.
    const texts = await documentsById(this.collection, ids);
    const pages = new Map<string, string | null>();
    for (const path of visible) {
      const file = snapshot.tree.files[path] as PathTreeFile;
      const revision = snapshot.revisions.get(path) as string;
      const parts: string[] = [];
      for (let index = 0; index < file.chunks; index++) {
        const text = texts.get(chunkId(path, revision, index));
        if (text === undefined) break;
        parts.push(text);
      }
      pages.set(path, parts.length === file.chunks ? parts.join("") : null);
    }
    return pages;
  }

  private accessFilter(snapshot: TreeSnapshot, access: Access): Where | undefined {
    const hidden: string[] = [];
    for (const path of Object.keys(snapshot.tree.files)) {
      if (!isVisibleIn(snapshot, path, access)) hidden.push(path);
    }
    if (hidden.length === 0) return undefined;
    if (hidden.length <= ACCESS_LIST_MAX_PATHS) return pathListWhere("$nin", hidden);
    const visible = visiblePaths(snapshot, access);
    if (visible.length <= ACCESS_LIST_MAX_PATHS) return pathListWhere("$in", visible);
    return accessWhere(access);
  }

  private currentTree(): Promise<TreeSnapshot> {
    return this.snapshot ? Promise.resolve(this.snapshot) : this.reloadTree();
  }

  private reloadTree(): Promise<TreeSnapshot> {
    this.loading ??= this.loadTree().finally(() => {
      this.loading = undefined;
    });
    return this.loading;
  }

  private async loadTree(): Promise<TreeSnapshot> {
    const tree = await readStoredTree(this.collection, this.collection.name);
    if (!tree) {
      throw new PathTreeError(
        this.collection.name,
        `Collection ${this.collection.name} has no path tree (${PATH_TREE_ID}); ingest docs into it first: atrium-docs ingest <dir> --collection ${this.collection.name}`,
        { missing: true },
      );
    }
    const revisions = new Map(
      Object.entries(tree.files).map(([path, file]) => [path, pageRevision(file, tree.chunking)]),
    );
    const previous = this.snapshot;
    // Every session's TreeCache re-reads the tree; an unchanged one keeps the grep index loaded.
    const same = previous && sameRevisions(previous.revisions, revisions);
    this.snapshot = {
      tree,
      revisions,
      leftovers: new Set(),
      grepIndex: same ? previous.grepIndex : undefined,
      digest: same ? previous.digest : undefined,
    };
    return this.snapshot;
  }
}

function sameRevisions(a: ReadonlyMap<string, string>, b: ReadonlyMap<string, string>): boolean {
  if (a.size !== b.size) return false;
  for (const [path, revision] of a) if (b.get(path) !== revision) return false;
  return true;
}

function isVisibleIn(snapshot: TreeSnapshot, path: string, access: Access): boolean {
  const file = snapshot.tree.files[path];
  if (!file) return false;
  const groups = file.groups;
  return !groups || groups.length === 0 || groups.some((group) => access.groups.includes(group));
}

function visiblePaths(snapshot: TreeSnapshot, access: Access): string[] {
  return Object.keys(snapshot.tree.files).filter((path) => isVisibleIn(snapshot, path, access));
}

function pathListWhere(operator: "$in" | "$nin", paths: string[]): Where {
  return { page: { [operator]: paths } } as unknown as Where;
}

/** The boolean-key access filter: `{public: true}` or any of the caller's groups (a single clause can't be wrapped in `$or`). */
export function accessWhere(access: Access): Where {
  const clauses: Where[] = [{ [PUBLIC_KEY]: true }];
  for (const group of new Set(access.groups)) clauses.push({ [groupKey(group)]: true });
  return clauses.length === 1 ? (clauses[0] as Where) : { $or: clauses };
}

export function documentFilter(filter: TextFilter): WhereDocument | undefined {
  if (filter.kind === "contains") {
    if (filter.text === "") return undefined;
    return filter.caseInsensitive
      ? { $regex: `(?i)${regexLiteral(filter.text)}` }
      : { $contains: filter.text };
  }
  if (filter.pattern === "") return undefined;
  return { $regex: filter.caseInsensitive ? `(?i)${filter.pattern}` : filter.pattern };
}

/** A filter the server refused (its Rust regex engine can't parse it), as `@atrium/chroma` classifies it. */
function isRejectedFilter(error: unknown): boolean {
  return loadedChroma()?.asFilterRejected(error) !== undefined;
}
