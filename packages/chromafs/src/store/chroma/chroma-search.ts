import type { Access, SearchHit } from "../../doc-store/doc-store.js";
import type { SearchOptions } from "../../doc-store/search-ranking.js";
import { rankSearch } from "../../search/rank-search.js";
import { SEARCH_HASHING_VECTOR_WEIGHT, SEARCH_NEURAL_VECTOR_WEIGHT } from "../../tuning.js";
import { accessWhereFor } from "./access-where.js";
import { chromaSearchSource } from "./chroma-search-source.js";
import type { FilterParts } from "./chunk-filters.js";

/** The shared search (`rankSearch`) over the collection, as `access` may see it. */
export async function searchChroma(
  { connection, snapshots, grep }: FilterParts,
  query: string,
  access: Access,
  limit: number,
  options: SearchOptions,
): Promise<SearchHit[]> {
  const snapshot = await snapshots.current();
  const source = chromaSearchSource({
    collection: connection.collection,
    embedding: connection.embedding,
    where: accessWhereFor(snapshot, access),
    files: snapshot.tree.files,
    revision: (page) => snapshot.revisions.get(page),
    check: (rows) => snapshots.checkRows(rows, access),
    chunksHoldingWords: (words) => grep.indexedWordChunks(snapshot, access, words),
  });
  // The offline hashing embedding is lexical and weaker than IDF-weighted keywords (see tuning.ts).
  const vectorWeight = connection.embedding.id.startsWith("hashing-")
    ? SEARCH_HASHING_VECTOR_WEIGHT
    : SEARCH_NEURAL_VECTOR_WEIGHT;
  return rankSearch(query, source, { ranking: options.ranking, limit, vectorWeight });
}
