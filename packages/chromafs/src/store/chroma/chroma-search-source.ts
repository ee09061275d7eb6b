import type { Collection, Where, WhereDocument } from "@atrium/chroma";
import type { Embedding } from "@atrium/spec";
import { documentsById } from "../../collection-schema/documents-by-id.js";
import { inParallel } from "../../collection-schema/in-parallel.js";
import { chunkId } from "../../collection-schema/page-revision.js";
import { regexLiteral } from "../../doc-store/regex-literal.js";
import { pageOutline } from "../../search/page-outline.js";
import type { NearChunk, SearchChunk, SearchSource } from "../../search/search-source.js";
import type { PathTreeFile } from "../../tree/path-tree.js";
import {
  SEARCH_EVIDENCE_MAX_DISTANCE,
  SEARCH_OUTLINE_CACHE_PAGES,
  STORE_PARALLEL_QUERIES,
} from "../../tuning.js";

/** What `ChromaDocStore` hands its search: the collection, the tree it read, and its own row check. */
export interface ChromaSearchContext {
  collection: Collection;
  embedding: Embedding;
  /** The access filter every query carries. */
  where: Where | undefined;
  /** Every page of the tree (statistics are the collection's, not the caller's share of it). */
  files: Readonly<Record<string, PathTreeFile>>;
  /** The chunk revision the tree points at for a page. */
  revision(page: string): string | undefined;
  /**
   * For each needle, the ids of the visible chunks holding it when the store can tell without
   * the server (its grep index), else null: those needles are queried.
   */
  chunksHoldingWords?(needles: readonly string[]): Promise<(string[] | null)[]>;
  /** Keeps the rows of current, visible chunks (the store's `checkRows`), as page + index. */
  check(
    rows: { id: string; text: string; score?: number }[],
  ): Promise<{ page: string; index: number; text: string; score?: number }[]>;
}

/** Outlines by `page#revision`, per collection object, so repeated searches read no page twice. */
const outlineCaches = new WeakMap<Collection, Map<string, string>>();

/** The `SearchSource` over a Chroma collection: substring and vector queries, chunks by id. */
export function chromaSearchSource(context: ChromaSearchContext): SearchSource {
  const { collection, where, files } = context;
  const all = Object.values(files);
  const chunkCount = all.reduce((sum, file) => sum + file.chunks, 0);
  const bytes = all.reduce((sum, file) => sum + file.size, 0);
  const keyOf = (row: { page: string; index: number }) =>
    chunkId(row.page, context.revision(row.page) ?? "", row.index);
  return {
    chunkCount,
    averageChunkBytes: chunkCount > 0 ? bytes / chunkCount : 0,

    async chunksHolding(needles) {
      const known = (await context.chunksHoldingWords?.(needles)) ?? needles.map(() => null);
      return inParallel(needles, STORE_PARALLEL_QUERIES, async (needle, index) => {
        const local = known[index];
        if (local) return local;
        // Caseless scripts (Chinese, Japanese) need no case folding, and `$contains` is cheaper.
        const caseless = needle.toUpperCase() === needle;
        const whereDocument: WhereDocument = caseless
          ? { $contains: needle }
          : { $regex: `(?i)${regexLiteral(needle)}` };
        return (await collection.get({ where, whereDocument, include: [] })).ids;
      });
    },

    async readChunks(keys): Promise<SearchChunk[]> {
      if (keys.length === 0) return [];
      const result = await collection.get({ ids: [...keys], include: ["documents"] });
      const rows = result.ids.map((id, row) => ({ id, text: result.documents[row] ?? "" }));
      return (await context.check(rows)).map((row) => ({ ...row, key: keyOf(row) }));
    },

    async outlines(pages) {
      let cache = outlineCaches.get(collection);
      if (!cache || cache.size > SEARCH_OUTLINE_CACHE_PAGES) {
        cache = new Map();
        outlineCaches.set(collection, cache);
      }
      const cached = cache;
      const wanted = pages.filter((page) => files[page] && context.revision(page) !== undefined);
      const missing = wanted.filter((page) => !cached.has(`${page}#${context.revision(page)}`));
      const ids = missing.flatMap((page) =>
        Array.from({ length: files[page]?.chunks ?? 0 }, (_, index) =>
          chunkId(page, context.revision(page) as string, index),
        ),
      );
      const texts = await documentsById(collection, ids);
      for (const page of missing) {
        const revision = context.revision(page) as string;
        const parts: string[] = [];
        for (let index = 0; index < (files[page]?.chunks ?? 0); index++)
          parts.push(texts.get(chunkId(page, revision, index)) ?? "");
        cached.set(`${page}#${revision}`, pageOutline(page, parts.join("")));
      }
      return new Map(wanted.map((page) => [page, cached.get(`${page}#${context.revision(page)}`) ?? ""]));
    },

    async nearest(query, count): Promise<NearChunk[]> {
      const [vector] = await context.embedding.embed([query]);
      // Only chunks: the tree and the grep index are records with a vector too (the server wants
      // one), and the index's document is large.
      const chunksOnly = { kind: "chunk" } as Where;
      const result = await collection.query({
        queryEmbeddings: vector ? [vector] : [],
        nResults: count,
        where: where ? ({ $and: [where, chunksOnly] } as Where) : chunksOnly,
        include: ["documents", "distances"],
      });
      const rows = (result.ids[0] ?? []).map((id, row) => ({
        id,
        text: result.documents[0]?.[row] ?? "",
        score: 1 - (result.distances?.[0]?.[row] ?? 1),
      }));
      // Chunks this close to the query count as evidence even without a query word (a neural
      // embedding's paraphrase); the offline hashing embedding is lexical, so it rarely gets here.
      return (await context.check(rows)).map((row) => {
        const similarity = row.score ?? 0;
        return { ...row, key: keyOf(row), similarity, close: 1 - similarity <= SEARCH_EVIDENCE_MAX_DISTANCE };
      });
    },
  };
}
