import { bm25Scores, countOccurrences } from "@atrium/spec/ranking";
import type { SearchHit } from "../store/doc-store.js";
import { SEARCH_SNIPPET_MAX_CHARS } from "../tuning.js";
import { queryWords } from "./query-words.js";
import { bestSnippet } from "./snippet.js";
import { TITLE_MATCH_BOOST, titleMatch } from "./title-match.js";

export interface Section {
  path: string;
  text: string;
  lower: string;
}

/** Pages split at Markdown headings, lower-cased once for matching. */
export function splitSections(pages: Iterable<[string, string]>): Section[] {
  const sections: Section[] = [];
  for (const [path, text] of pages) {
    for (const section of text.split(/\n(?=#{1,6}\s)/)) {
      sections.push({ path, text: section, lower: section.toLowerCase() });
    }
  }
  return sections;
}

/** A term in the section's heading (or the page's title) counts this many times more. */
const HEADING_WEIGHT = 2;
/** A section's heading: its `#` line, or the `title:` of the front-matter opening a page. */
const HEADING_LINE = /^(?:#{1,6}\s|title:|sidebartitle:).*$/m;

/**
 * Keyword ranking over pages split at headings: BM25 over sections (term counts saturating, long
 * sections normalised, rare terms weighing more), terms in the section's heading (or title) counted
 * HEADING_WEIGHT more times, and common English words dropped (`queryWords`). A page named after the query scores up to TITLE_MATCH_BOOST more (`titleMatch`).
 * One hit per page (its best section); snippet = `bestSnippet` of that section.
 */
export function rankSections(
  query: string,
  sections: readonly Section[],
  limit: number,
  titleOf: (path: string) => string | undefined = () => undefined,
): SearchHit[] {
  const terms = queryWords(query);
  if (terms.length === 0 || limit <= 0 || sections.length === 0) return [];
  const headings = sections.map((section) => HEADING_LINE.exec(section.lower)?.[0] ?? "");
  const scores = bm25Scores(
    terms,
    sections.map((section, index) => ({
      length: section.lower.length,
      frequency: (term: string) =>
        countOccurrences(section.lower, term) +
        HEADING_WEIGHT * countOccurrences(headings[index] ?? "", term),
    })),
  );
  const best = new Map<string, SearchHit>();
  sections.forEach((section, index) => {
    let score = scores[index] ?? 0;
    if (score === 0) return;
    score *= 1 + TITLE_MATCH_BOOST * titleMatch(section.path, titleOf(section.path), terms);
    const previous = best.get(section.path);
    if (previous && previous.score >= score) return;
    const snippet = bestSnippet(section.text, terms, SEARCH_SNIPPET_MAX_CHARS);
    best.set(section.path, { path: section.path, snippet, score });
  });
  return [...best.values()].sort((a, b) => b.score - a.score || (a.path < b.path ? -1 : 1)).slice(0, limit);
}
