import { SEARCH_SNIPPET_MAX_CHARS } from "../limits.js";
import { bestSnippet } from "../search/snippet.js";
import { TITLE_MATCH_BOOST, titleMatch } from "../search/title-match.js";
import { queryWords } from "./chroma-doc-store.js";
import type { SearchHit } from "./doc-store.js";

const WORD = /[\p{L}\p{N}_]+/gu;

/** Lower-cased words of a query; CJK text has no spaces, so each ideograph also counts alone. */
export function queryTerms(query: string): string[] {
  const terms = new Set<string>();
  for (const match of query.toLowerCase().matchAll(WORD)) {
    const word = match[0];
    if (/\p{Script=Han}/u.test(word)) for (const char of word) terms.add(char);
    if (word.length >= 2 || /\p{Script=Han}/u.test(word)) terms.add(word);
  }
  return [...terms];
}

function countOccurrences(haystack: string, needle: string): number {
  let count = 0;
  for (let at = haystack.indexOf(needle); at !== -1; at = haystack.indexOf(needle, at + needle.length)) {
    count++;
  }
  return count;
}

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

const K1 = 1.2;
const B = 0.75;
/** A term in the section's heading (or the page's title) counts this many times more. */
const HEADING_WEIGHT = 2;
/** A section's heading: its `#` line, or the `title:` of the front-matter opening a page. */
const HEADING_LINE = /^(?:#{1,6}\s|title:|sidebartitle:).*$/m;

/**
 * Keyword ranking over pages split at headings: BM25 over sections (term counts saturating, long
 * sections normalised, rare terms weighing more), terms in the section's heading (or title) counted
 * HEADING_WEIGHT more times, and common English words dropped as in the Chroma store's
 * `queryWords`. A page named after the query scores up to TITLE_MATCH_BOOST more (`titleMatch`).
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
  const idf = new Map<string, number>();
  for (const term of terms) {
    const frequency = sections.filter((s) => s.lower.includes(term)).length;
    if (frequency > 0) idf.set(term, Math.log(1 + (sections.length - frequency + 0.5) / (frequency + 0.5)));
  }
  const averageLength = sections.reduce((sum, s) => sum + s.lower.length, 0) / sections.length;
  const best = new Map<string, SearchHit>();
  for (const section of sections) {
    const heading = HEADING_LINE.exec(section.lower)?.[0] ?? "";
    const norm = K1 * (1 - B + (B * section.lower.length) / averageLength);
    let score = 0;
    for (const [term, weight] of idf) {
      const frequency =
        countOccurrences(section.lower, term) + HEADING_WEIGHT * countOccurrences(heading, term);
      if (frequency > 0) score += (weight * frequency * (K1 + 1)) / (frequency + norm);
    }
    if (score === 0) continue;
    score *= 1 + TITLE_MATCH_BOOST * titleMatch(section.path, titleOf(section.path), terms);
    const previous = best.get(section.path);
    if (previous && previous.score >= score) continue;
    const snippet = bestSnippet(section.text, terms, SEARCH_SNIPPET_MAX_CHARS);
    best.set(section.path, { path: section.path, snippet, score });
  }
  return [...best.values()].sort((a, b) => b.score - a.score || (a.path < b.path ? -1 : 1)).slice(0, limit);
}
