import { documentsById } from "../../collection-schema/documents-by-id.js";
import { chunkId } from "../../collection-schema/page-revision.js";
import type { Access, TextFilter } from "../../doc-store/doc-store.js";
import { filterLiterals } from "../../doc-store/text-filter-matcher.js";
import {
  type IndexedChunk,
  indexedCandidates,
  type LoadedGrepIndex,
  literalTest,
  loadGrepIndex,
} from "../../grep/index/indexed-grep.js";
import { DEFAULT_CHROMAFS_LIMITS } from "../../limits.js";
import { LruTextCache } from "../../text-cache/lru-text-cache.js";
import type { ChromaConnection } from "./connection.js";
import { isVisibleIn, type TreeSnapshot, type TreeSnapshots } from "./tree-snapshot.js";

/**
 * What lets a `ChromaDocStore` answer grep without a text query on the server: the collection's
 * grep index (loaded once per tree snapshot) and the chunk texts grep read, by chunk id (ids
 * name the page revision, so entries never go stale), kept across sessions.
 */
export class GrepCache {
  private readonly chunkTexts: LruTextCache;

  constructor(
    private readonly connection: ChromaConnection,
    private readonly snapshots: TreeSnapshots,
    maxChunkCacheBytes: number,
  ) {
    this.chunkTexts = new LruTextCache(maxChunkCacheBytes);
  }

  /**
   * The visible chunks holding the filter's literal (or one of a regex's `literals`: a superset
   * of the regex's chunks), in page (sorted) then chunk order, found with the collection's grep
   * index and read from the chunk cache (the misses in one round trip by id): no text query
   * runs on the server. Undefined when the index can't answer (none, built for another tree, a
   * regex without literals, a chunk gone from the server): the caller asks the server.
   */
  async indexedMatches(
    filter: TextFilter,
    access: Access,
    within: readonly string[] | undefined,
  ): Promise<(IndexedChunk & { text: string })[] | undefined> {
    if (!filterLiterals(filter)) return undefined;
    const snapshot = await this.snapshots.current();
    const loaded = await this.grepIndexOf(snapshot);
    if (!loaded) return undefined;
    // The texts may all come from the cache, so nothing else would notice a re-ingest (a page
    // changed, or restricted): the collection's tree digest, one small read made meanwhile, says
    // whether this tree is still current before anything is answered from it.
    const current = this.snapshots.isCurrent(snapshot);
    current.catch(() => undefined);
    const answer = await this.indexedAnswer(snapshot, loaded, filter, access, within);
    if (await current) return answer;
    await this.snapshots.reload();
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
    const texts = await this.chunkTextsOf(candidates.map((chunk) => currentChunkId(snapshot, chunk)));
    if (!texts) return undefined;
    const holds = literalTest(filter);
    return candidates
      .map((chunk, row) => ({ ...chunk, text: texts[row] as string }))
      .filter((chunk) => holds(chunk.text));
  }

  /**
   * For each word (letters, digits and `_` only), the ids of the visible chunks holding it
   * case-insensitively, from the grep index (exact for such words: a chunk holds the word exactly
   * when one of its own words contains it); null for another needle, or for all when there is no
   * current index: the server is asked for those.
   */
  async indexedWordChunks(
    snapshot: TreeSnapshot,
    access: Access,
    needles: readonly string[],
  ): Promise<(string[] | null)[]> {
    const none = needles.map(() => null);
    const loaded = await this.grepIndexOf(snapshot);
    if (!loaded || !(await this.snapshots.isCurrent(snapshot))) return none;
    return needles.map((needle) => {
      if (!/^[\p{L}\p{M}\p{N}_]+$/u.test(needle)) return null;
      const filter = { kind: "contains", text: needle, caseInsensitive: true } as const;
      const chunks = indexedCandidates(loaded, filter, (path) => isVisibleIn(snapshot, path, access));
      return chunks?.map((chunk) => currentChunkId(snapshot, chunk)) ?? null;
    });
  }

  private grepIndexOf(snapshot: TreeSnapshot): Promise<LoadedGrepIndex | null> {
    if (!snapshot.grepIndex) {
      const loading = loadGrepIndex(
        this.connection.collection,
        snapshot.tree,
        snapshot.revisions,
        DEFAULT_CHROMAFS_LIMITS.maxGrepIndexBytes,
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
      this.connection.collection,
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
}

/** The id of an indexed chunk at the revision the snapshot's tree points at. */
function currentChunkId(snapshot: TreeSnapshot, chunk: IndexedChunk): string {
  return chunkId(chunk.page, snapshot.revisions.get(chunk.page) as string, chunk.index);
}
