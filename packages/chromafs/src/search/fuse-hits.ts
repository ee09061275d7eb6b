import { scoreFusion } from "@atrium/kit";
import type { SearchHit } from "../doc-store/doc-store.js";
import { SEARCH_SNIPPET_MAX_CHARS } from "../tuning.js";
import { bestSnippet, termsIn } from "./snippet.js";

/** A ranked item of one list: a chunk (vector or keyword leg), or a page's outline. */
export interface RankedChunk {
  page: string;
  /** The chunk's index in its page; -1 for an outline, which is never a snippet. */
  index: number;
  text: string;
  /** The list's own score, higher is better (BM25, cosine similarity). */
  score: number;
}

export interface FuseOptions {
  /** One weight per list. */
  weights: readonly number[];
  /** The query's words (`queryWords`): snippets are centred on them. */
  words: readonly string[];
  /** Substrings whose presence makes an item evidence (the query's words and their stems' needles). */
  evidence: readonly string[];
  limit: number;
  /** A chunk semantically close enough to count as evidence without holding a query word. */
  close: (chunk: RankedChunk) => boolean;
  /** False: every page ranked is a hit (the vector leg measured alone). Default true. */
  requireEvidence?: boolean;
}

/**
 * Score fusion (`scoreFusion`: each list's scores min-max normalised, weighted, summed) of ranked
 * lists, one hit per page at its best item per list. Rank fusion (RRF) was measured worse on the
 * evaluation set (bench/search-eval.ts): it flattens BM25's clear winners to positions, so the
 * weaker vector leg's votes reorder the head. Only pages with evidence are hits: one of their
 * items holds a query word or is semantically `close` (the vector leg always answers with its
 * nearest chunks, even for nonsense, and those are no answer). The snippet comes from the page's
 * chunk holding the most query words (the best-ranked one on a tie). With one list this is that
 * list's ranking by page.
 */
export function fuseHits(lists: readonly (readonly RankedChunk[])[], options: FuseOptions): SearchHit[] {
  const { words } = options;
  const fused = scoreFusion(lists, {
    key: (row) => row.page,
    score: (row) => row.score,
    weights: options.weights,
  });
  const hits = fused.map((entry) => {
    let best: (typeof entry.occurrences)[number] | undefined;
    let found = -1;
    let evidence = false;
    for (const occurrence of entry.occurrences) {
      evidence ||= termsIn(occurrence.item.text, options.evidence) > 0 || options.close(occurrence.item);
      if (occurrence.item.index < 0) continue;
      const count = termsIn(occurrence.item.text, words);
      if (!best || count > found || (count === found && occurrence.contribution > best.contribution)) {
        best = occurrence;
        found = count;
      }
    }
    return { path: entry.key, score: entry.score, text: best?.item.text ?? "", evidence };
  });
  return hits
    .filter((hit) => hit.evidence || options.requireEvidence === false)
    .sort((a, b) => b.score - a.score || (a.path < b.path ? -1 : 1))
    .slice(0, options.limit)
    .map((hit) => ({
      path: hit.path,
      snippet: bestSnippet(hit.text, words, SEARCH_SNIPPET_MAX_CHARS),
      score: hit.score,
    }));
}
