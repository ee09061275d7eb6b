import { scoreFusion } from "@atrium/spec/ranking";
import type { SearchHit } from "../store/doc-store.js";
import { SEARCH_SNIPPET_MAX_CHARS } from "../tuning.js";
import { bestSnippet, termsIn } from "./snippet.js";
import { TITLE_MATCH_BOOST } from "./title-match.js";

/** A ranked chunk of one leg (vector or keyword). */
export interface RankedChunk {
  page: string;
  index: number;
  text: string;
  /** The leg's own score, higher is better (BM25, cosine similarity). */
  score: number;
}

export interface FuseOptions {
  /** One weight per list. */
  weights: readonly number[];
  /** The query's words (`queryWords`). */
  words: readonly string[];
  limit: number;
  /** A chunk semantically close enough to count as evidence without holding a query word. */
  close: (chunk: RankedChunk) => boolean;
  /** Share (0–1) of the query's words in the page's name or title (`titleMatch`). */
  named: (path: string) => number;
}

/**
 * Score fusion (`scoreFusion`: each leg's scores min-max normalised, weighted, summed) of ranked
 * chunk lists, one hit per page at its best chunk per leg. Rank fusion (RRF) was measured worse on
 * the evaluation set (bench/search-eval.ts): it flattens BM25's clear winners to positions, so the
 * weaker vector leg's votes reorder the head. Only pages with evidence are
 * hits: one of their chunks holds a query word or is semantically `close` (the vector leg always
 * answers with its nearest chunks, even for nonsense, and those are no answer). The snippet comes
 * from the page's chunk holding the most query words (the best-ranked one on a tie). A page named
 * after the query scores up to TITLE_MATCH_BOOST more. With one list this is that list's ranking
 * by page, so a single leg goes through the same evidence, title and snippet rules.
 */
export function fuseHits(lists: readonly (readonly RankedChunk[])[], options: FuseOptions): SearchHit[] {
  const { words } = options;
  const fused = scoreFusion(lists, {
    key: (row) => row.page,
    score: (row) => row.score,
    weights: options.weights,
  });
  const hits = fused.map((entry) => {
    const occurrences = entry.occurrences;
    let best = occurrences[0]!;
    let found = termsIn(best.item.text, words);
    let evidence = found > 0 || options.close(best.item);
    for (const occurrence of occurrences.slice(1)) {
      const count = termsIn(occurrence.item.text, words);
      evidence ||= count > 0 || options.close(occurrence.item);
      if (count > found || (count === found && occurrence.contribution > best.contribution)) {
        best = occurrence;
        found = count;
      }
    }
    return {
      path: entry.key,
      score: entry.score * (1 + TITLE_MATCH_BOOST * options.named(entry.key)),
      best,
      evidence,
    };
  });
  return hits
    .filter((hit) => hit.evidence)
    .sort((a, b) => b.score - a.score || (a.path < b.path ? -1 : 1))
    .slice(0, options.limit)
    .map((hit) => ({
      path: hit.path,
      snippet: bestSnippet(hit.best.item.text, words, SEARCH_SNIPPET_MAX_CHARS),
      score: hit.score,
    }));
}
