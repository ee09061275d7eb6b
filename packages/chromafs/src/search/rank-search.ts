import { bm25Idf } from "@atrium/kit";
import type { SearchHit } from "../doc-store/doc-store.js";
import type { SearchRanking } from "../doc-store/search-ranking.js";
import { SEARCH_CANDIDATES, SEARCH_KEYWORD_WEIGHT, SEARCH_OUTLINE_WEIGHT } from "../tuning.js";
import { chunkBm25 } from "./chunk-bm25.js";
import { fuseHits, type RankedChunk } from "./fuse-hits.js";
import { type KeywordTerm, keywordTerms, type TermForm } from "./keyword-terms.js";
import { outlineScores } from "./page-outline.js";
import { queryWords } from "./query-words.js";
import type { SearchSource } from "./search-source.js";

export interface RankSearchOptions {
  ranking?: SearchRanking;
  limit: number;
  /** Weight of the vector leg in the fusion (by embedding: `SEARCH_HASHING_VECTOR_WEIGHT` ...). */
  vectorWeight: number;
}

/**
 * The search both stores run (see `SearchRanking` for the parts). The fusion combines three
 * lists by score (`fuseHits`): the vector leg's nearest chunks, BM25 over chunks with English
 * plurals and verb endings folded, and BM25 over the outlines (`pageOutline`) of the pages
 * either leg found, a second, page-level view of the keywords in which a page's name, title,
 * description and headings count apart from its body.
 */
export async function rankSearch(
  query: string,
  source: SearchSource,
  options: RankSearchOptions,
): Promise<SearchHit[]> {
  const ranking = options.ranking ?? "fused";
  const words = queryWords(query);
  const limit = Math.max(1, Math.min(Math.floor(options.limit), SEARCH_CANDIDATES));
  const lists: RankedChunk[][] = [];
  const weights: number[] = [];
  const close = new Set<string>();
  if (ranking === "vector" || ranking === "fused") {
    const near = source.nearest ? await source.nearest(query, SEARCH_CANDIDATES) : [];
    if (ranking === "vector" && near.length === 0) return [];
    for (const chunk of near) if (chunk.close) close.add(`${chunk.page}#${chunk.index}`);
    lists.push(near.map(({ page, index, text, similarity }) => ({ page, index, text, score: similarity })));
    weights.push(options.vectorWeight);
  }
  const form: TermForm = ranking === "keyword" ? "plain" : "stemmed";
  const terms = ranking === "vector" ? [] : keywordTerms(query, form);
  if (terms.length > 0) {
    const { idf, chunks } = await keywordLeg(source, terms, form);
    lists.push(chunks);
    weights.push(SEARCH_KEYWORD_WEIGHT);
    if (ranking !== "keyword" && idf.size > 0) {
      const pages = [...new Set(lists.flat().map((chunk) => chunk.page))];
      const outlines = await source.outlines(pages);
      const scores = outlineScores(outlines, idf, form);
      lists.push(
        [...scores].map(([page, score]) => ({ page, index: -1, text: outlines.get(page) ?? "", score })),
      );
      weights.push(SEARCH_OUTLINE_WEIGHT);
    }
  }
  return fuseHits(lists, {
    weights,
    words,
    evidence: [...words, ...terms.map((term) => term.needle)],
    limit,
    close: (chunk) => close.has(`${chunk.page}#${chunk.index}`),
    requireEvidence: ranking !== "vector",
  });
}

/**
 * BM25 over chunks, with what a database can tell cheaply: one substring query per term gives
 * its document frequency (an upper bound: a needle also matches inside longer words), the chunks
 * holding the most IDF weight are read, and each is scored on its whole words (`chunkBm25`).
 */
async function keywordLeg(
  source: SearchSource,
  terms: readonly KeywordTerm[],
  form: TermForm,
): Promise<{ idf: Map<string, number>; chunks: RankedChunk[] }> {
  const holding = await source.chunksHolding(terms.map((term) => term.needle));
  const idf = new Map<string, number>();
  const coarse = new Map<string, number>();
  const total = Math.max(1, source.chunkCount);
  holding.forEach((keys, index) => {
    if (keys.length === 0) return;
    const weight = bm25Idf(total, Math.min(keys.length, total));
    idf.set((terms[index] as KeywordTerm).term, weight);
    for (const key of keys) coarse.set(key, (coarse.get(key) ?? 0) + weight);
  });
  const candidates = [...coarse]
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .slice(0, SEARCH_CANDIDATES * 2)
    .map(([key]) => key);
  if (candidates.length === 0) return { idf, chunks: [] };
  const chunks = (await source.readChunks(candidates))
    .map((chunk) => ({
      key: chunk.key,
      page: chunk.page,
      index: chunk.index,
      text: chunk.text,
      score: chunkBm25(chunk.text, idf, source.averageChunkBytes, form),
    }))
    .filter((chunk) => chunk.score > 0)
    .sort((a, b) => b.score - a.score || (a.key < b.key ? -1 : 1))
    .slice(0, SEARCH_CANDIDATES)
    .map(({ key: _key, ...chunk }) => chunk);
  return { idf, chunks };
}
