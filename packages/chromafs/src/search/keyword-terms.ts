import { tokenize } from "@atrium/kit";
import { stemEnglish, stemNeedle } from "./english-stem.js";
import { queryWords } from "./query-words.js";

/** How words are compared: as written (plain BM25), or with English plurals and verb endings folded. */
export type TermForm = "plain" | "stemmed";

/** A query term, and the substring every chunk holding it holds (what a database can match). */
export interface KeywordTerm {
  term: string;
  needle: string;
}

/** The distinct terms of a query (`queryWords`, each stemmed when `form` is "stemmed"). */
export function keywordTerms(query: string, form: TermForm): KeywordTerm[] {
  const terms = new Map<string, KeywordTerm>();
  for (const word of queryWords(query)) {
    const term = form === "stemmed" ? stemEnglish(word) : word;
    if (!terms.has(term)) terms.set(term, { term, needle: form === "stemmed" ? stemNeedle(term) : term });
  }
  return [...terms.values()];
}

/** How often each word (`tokenize`'s, stemmed for "stemmed") occurs in `text`. */
export function termCounts(text: string, form: TermForm): Map<string, number> {
  const counts = new Map<string, number>();
  for (const word of tokenize(text)) {
    const term = form === "stemmed" ? stemEnglish(word) : word;
    counts.set(term, (counts.get(term) ?? 0) + 1);
  }
  return counts;
}
