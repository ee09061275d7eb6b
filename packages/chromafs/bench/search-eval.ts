/**
 * Docs-search quality on the evaluation set (`search-questions.json`, written from the pages
 * before any ranking change): recall@5 and MRR (over the top 10) of the fused ranking and of each
 * leg alone — the offline embedding and plain BM25 — side by side, so the fusion must earn its
 * place against the better of its parts. The fusion's keyword side has signals neither leg has
 * (plurals and verb endings folded, page outlines), so the ablation `fused_without_vector` (the
 * fusion minus its vector leg) shows which part of the gain comes from the vector leg and which
 * from the fields.
 */
import { readFileSync } from "node:fs";
import type { BenchRow } from "@atrium/bench";
import type { DocStore } from "../src/doc-store/doc-store.js";
import type { SearchRanking } from "../src/doc-store/search-ranking.js";

interface Question {
  q: string;
  page: string;
}

const QUESTIONS: readonly Question[] = (
  JSON.parse(readFileSync(new URL("./search-questions.json", import.meta.url), "utf8")) as {
    questions: Question[];
  }
).questions;

/** MRR counts the answer's rank within this many hits (0 beyond). */
const MRR_DEPTH = 10;
const RECALL_DEPTH = 5;

export interface SearchQuality {
  recallAt5: number;
  mrr: number;
}

/** Recall@5 and MRR of one ranking over every question. */
export async function searchQuality(store: DocStore, ranking: SearchRanking): Promise<SearchQuality> {
  let found = 0;
  let reciprocal = 0;
  for (const { q, page } of QUESTIONS) {
    const hits = await store.search(q, { groups: [] }, MRR_DEPTH, { ranking });
    const rank = hits.findIndex((hit) => hit.path === page);
    if (rank >= 0 && rank < RECALL_DEPTH) found++;
    if (rank >= 0) reciprocal += 1 / (rank + 1);
  }
  return { recallAt5: found / QUESTIONS.length, mrr: reciprocal / QUESTIONS.length };
}

/**
 * The rows: `search.recall_at_5.<ranking>` and `search.mrr.<ranking>` for vector, bm25, fused,
 * and the ablation fused_without_vector.
 */
export async function measureSearchQuality(store: DocStore): Promise<BenchRow[]> {
  const vector = await searchQuality(store, "vector");
  const keyword = await searchQuality(store, "keyword");
  const fused = await searchQuality(store, "fused");
  const withoutVector = await searchQuality(store, "fused-without-vector");
  const better = vector.recallAt5 >= keyword.recallAt5 ? "vector" : "bm25";
  const betterRecall = Math.max(vector.recallAt5, keyword.recallAt5);
  return [
    { metric: "search.recall_at_5.vector", value: vector.recallAt5, unit: "share" },
    { metric: "search.recall_at_5.bm25", value: keyword.recallAt5, unit: "share" },
    {
      metric: "search.recall_at_5.fused",
      value: fused.recallAt5,
      unit: "share",
      baseline: `search.recall_at_5.${better}`,
      baselineValue: betterRecall,
    },
    {
      metric: "search.recall_at_5.fused_without_vector",
      value: withoutVector.recallAt5,
      unit: "share",
    },
    { metric: "search.mrr.vector", value: vector.mrr, unit: "score" },
    { metric: "search.mrr.bm25", value: keyword.mrr, unit: "score" },
    { metric: "search.mrr.fused", value: fused.mrr, unit: "score" },
    { metric: "search.mrr.fused_without_vector", value: withoutVector.mrr, unit: "score" },
    { metric: "search.questions", value: QUESTIONS.length, unit: "count" },
  ];
}
