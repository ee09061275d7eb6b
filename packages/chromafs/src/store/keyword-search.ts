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

/**
 * Keyword ranking over pages split at headings: each section scores by term frequency weighted
 * by how rare the term is across sections (a small BM25-like score), one hit per page (its best
 * section), snippet = the section's line with most query terms.
 */
export function rankSections(query: string, sections: readonly Section[], limit: number): SearchHit[] {
  const terms = queryTerms(query);
  if (terms.length === 0 || limit <= 0) return [];
  const documentFrequency = new Map<string, number>();
  for (const term of terms) {
    documentFrequency.set(term, sections.filter((s) => s.lower.includes(term)).length);
  }
  const best = new Map<string, SearchHit>();
  for (const section of sections) {
    let score = 0;
    for (const term of terms) {
      const frequency = countOccurrences(section.lower, term);
      if (frequency === 0) continue;
      const rarity = Math.log(1 + sections.length / (documentFrequency.get(term) ?? 1));
      score += rarity * (frequency / (frequency + 1.2));
    }
    if (score === 0) continue;
    const previous = best.get(section.path);
    if (previous && previous.score >= score) continue;
    best.set(section.path, { path: section.path, snippet: bestLine(section.text, terms), score });
  }
  return [...best.values()].sort((a, b) => b.score - a.score || (a.path < b.path ? -1 : 1)).slice(0, limit);
}

function bestLine(text: string, terms: readonly string[]): string {
  let chosen = "";
  let chosenHits = 0;
  for (const line of text.split("\n")) {
    const lower = line.toLowerCase();
    const hits = terms.filter((term) => lower.includes(term)).length;
    if (hits > chosenHits) {
      chosen = line;
      chosenHits = hits;
    }
  }
  return chosen.trim();
}
