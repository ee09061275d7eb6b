import type { ChromaClient, Collection, Metadata, Where, WhereDocument } from "@atrium/chroma";
import { AtriumError, type Embedding, errorMessage, rethrowIfFatal } from "@atrium/spec";
import { groupKey, PUBLIC_KEY } from "../collection-schema/access-keys.js";
import {
  type ChromaTarget,
  defaultEmbedding,
  openDocsCollection,
  resolveClient,
} from "../collection-schema/docs-collection.js";
import { inParallel } from "../collection-schema/in-parallel.js";
import { chunkId, chunksCarryLines, pageRevision, parseChunkId } from "../collection-schema/page-revision.js";
import { readStoredTree } from "../collection-schema/stored-tree.js";
import { chunkBm25 } from "../search/chunk-bm25.js";
import { fuseHits, type RankedChunk } from "../search/fuse-hits.js";
import { queryWords } from "../search/query-words.js";
import type { SearchOptions } from "../search/search-ranking.js";
import { titleMatch } from "../search/title-match.js";
import { PATH_TREE_ID, type PathTree, type PathTreeFile, type StoredPathTree } from "../tree/path-tree.js";
import { PathTreeError } from "../tree/path-tree-codec.js";
import {
  ACCESS_LIST_MAX_PATHS,
  SEARCH_CANDIDATES,
  SEARCH_EVIDENCE_MAX_DISTANCE,
  SEARCH_HASHING_VECTOR_WEIGHT,
  SEARCH_KEYWORD_WEIGHT,
  SEARCH_NEURAL_VECTOR_WEIGHT,
  STORE_IDS_PER_QUERY,
  STORE_PARALLEL_QUERIES,
} from "../tuning.js";
import type { Access, DocStore, PageChunk, SearchHit, TextFilter } from "./doc-store.js";
import { loadChroma, loadedChroma } from "./load-chroma.js";
import { regexLiteral } from "./regex-literal.js";
import { StoreUnavailableError, unreachableReason } from "./store-unavailable.js";

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
};

/** What the store needs of an embedded server to follow it across restarts. */
export interface FollowedServer {
  /** Where the server answers now. */
  readonly url: string;
  /** Looks again where the server is (a reuser re-reads the shared record). */
  refresh?(): Promise<unknown>;
}

/** The store answered something inconsistent (chunks missing for a page the tree lists). */
export class DocStoreError extends AtriumError {
  constructor(message: string) {
    super("UNAVAILABLE", message, { isFatal: true });
  }
}

/** The tree as last read, with each page's chunk revision (which chunk ids are current). */
interface TreeSnapshot {
  tree: StoredPathTree;
  revisions: Map<string, string>;
  /** `page#revision` of chunks seen that this tree doesn't point at. */
  leftovers: Set<string>;
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

  private constructor(
    private collection: Collection,
    private readonly embedding: Embedding,
    private url: string | undefined,
    private readonly server: FollowedServer | undefined,
  ) {
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
    return new ChromaDocStore(collection, embedding, options.url, options.server);
  }

  get description(): string {
    return `chroma ${this.url ?? "(client)"} collection ${this.collection.name}`;
  }

  /**
   * What another thread needs to open its own client of this store (a `SessionWorkerPool`
   * worker): where it is now, the collection, the embedding's id (a `resolveEmbedding` spec)
   * and the server to follow. Undefined for a store opened on a client object.
   */
  reopening(): { url: string; collection: string; embedding: string; server?: FollowedServer } | undefined {
    if (this.url === undefined) return undefined;
    return {
      url: this.url,
      collection: this.collection.name,
      embedding: this.embedding.id,
      server: this.server,
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

  private async searchNow(
    query: string,
    access: Access,
    limit: number,
    options: SearchOptions,
  ): Promise<SearchHit[]> {
    const ranking = options.ranking ?? "fused";
    const wanted = Math.max(1, Math.min(Math.floor(limit), SEARCH_CANDIDATES));
    const snapshot = await this.currentTree();
    const where = this.accessFilter(snapshot, access);
    const words = queryWords(query);
    const lists: RankedChunk[][] = [];
    const scored = (rows: ChunkRow[]): RankedChunk[] =>
      rows.map((row) => ({ ...row, score: row.score ?? 0 }));
    const weights: number[] = [];
    // Chunks this close to the query count as evidence even without a query word (a neural
    // embedding's paraphrase); the offline hashing embedding is lexical, so it rarely gets here.
    const close = new Set<string>();
    if (ranking !== "keyword") {
      const [vector] = await this.embedding.embed([query]);
      const semantic = await this.collection.query({
        queryEmbeddings: vector ? [vector] : [],
        nResults: SEARCH_CANDIDATES,
        where,
        include: ["documents", "distances"],
      });
      const semanticRows = (semantic.ids[0] ?? []).map((id, row) => ({
        id,
        text: semantic.documents[0]?.[row] ?? "",
        score: 1 - (semantic.distances?.[0]?.[row] ?? 1),
      }));
      (semantic.ids[0] ?? []).forEach((id, row) => {
        const distance = semantic.distances?.[0]?.[row];
        const chunk = parseChunkId(id);
        if (chunk && typeof distance === "number" && distance <= SEARCH_EVIDENCE_MAX_DISTANCE) {
          close.add(`${chunk.page}#${chunk.index}`);
        }
      });
      lists.push(scored(await this.checkRows(semanticRows, access)));
      weights.push(this.semanticWeight);
    }
    if (ranking !== "vector" && words.length > 0) {
      lists.push(scored(await this.keywordPass(query, words, where, access)));
      weights.push(SEARCH_KEYWORD_WEIGHT);
    }
    return fuseHits(lists, {
      weights,
      words,
      limit: wanted,
      close: (row) => close.has(`${row.page}#${row.index}`),
      named: (path) => titleMatch(path, snapshot.tree.files[path]?.title, words),
    });
  }

  /**
   * Keyword ranking: one id-only query per query word (case-insensitive) gives each word's
   * document frequency; the chunks holding the most (IDF-weighted) words are fetched and ranked
   * by BM25 — term counts and chunk length — with a bonus for the whole query as a phrase.
   */
  private async keywordPass(
    query: string,
    words: string[],
    where: Where | undefined,
    access: Access,
  ): Promise<ChunkRow[]> {
    const snapshot = await this.currentTree();
    const files = Object.values(snapshot.tree.files);
    const total = Math.max(
      1,
      files.reduce((sum, file) => sum + file.chunks, 0),
    );
    const averageBytes = files.reduce((sum, file) => sum + file.size, 0) / total;
    const idsPerWord = await inParallel(words, STORE_PARALLEL_QUERIES, async (word) => {
      // Caseless scripts (Chinese, Japanese) need no case folding, and `$contains` is cheaper.
      const caseless = word.toUpperCase() === word;
      const whereDocument: WhereDocument = caseless
        ? { $contains: word }
        : { $regex: `(?i)${regexLiteral(word)}` };
      const result = await this.collection.get({ where, whereDocument, include: [] });
      return result.ids;
    });
    const idf = new Map<string, number>();
    const coarse = new Map<string, number>();
    idsPerWord.forEach((ids, index) => {
      if (ids.length === 0) return;
      const weight = Math.log(1 + total / ids.length);
      idf.set(words[index] as string, weight);
      for (const id of ids) coarse.set(id, (coarse.get(id) ?? 0) + weight);
    });
    const candidates = [...coarse]
      .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
      .slice(0, SEARCH_CANDIDATES * 2)
      .map(([id]) => id);
    if (candidates.length === 0) return [];
    const result = await this.collection.get({ ids: candidates, include: ["documents"] });
    const phrase = query.toLowerCase().replace(/\s+/g, " ").trim();
    const ranked = result.ids
      .map((id, row) => {
        const text = result.documents[row] ?? "";
        return { id, text, score: chunkBm25(text, idf, averageBytes, words.length > 1 ? phrase : undefined) };
      })
      .sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : 1))
      .slice(0, SEARCH_CANDIDATES);
    return this.checkRows(ranked, access);
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
    // access filter (a `where` on top would double the cost of the biggest query there is).
    const texts = new Map<string, string>();
    const batches: string[][] = [];
    for (let start = 0; start < ids.length; start += STORE_IDS_PER_QUERY) {
      batches.push(ids.slice(start, start + STORE_IDS_PER_QUERY));
    }
    await inParallel(batches, STORE_PARALLEL_QUERIES, async (batch) => {
      const result = await this.collection.get({ ids: batch, include: ["documents"] });
      result.ids.forEach((id, row) => {
        // A chunk served without its document is missing, not empty: the page is then retried
        // after a tree re-read and reported, never assembled short.
        const text = result.documents[row];
        if (typeof text === "string") texts.set(id, text);
      });
    });
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
    this.snapshot = { tree, revisions, leftovers: new Set() };
    return this.snapshot;
  }
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
