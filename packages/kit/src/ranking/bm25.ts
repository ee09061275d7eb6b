import { tokenize } from "./tokenize.js";

/**
 * BM25 (Robertson–Spärck Jones, in Lucene's form): a term's weight grows with its count in a
 * document but saturates (k1), long documents are normalised against the average length (b),
 * and rare terms weigh more (IDF). For where no database ranks: an in-memory set, or candidates
 * a database found by filter but cannot score.
 */

export interface Bm25Parameters {
  /** Saturation: how fast extra occurrences stop adding (1.2 is the usual choice). */
  k1: number;
  /** Length normalisation: 0 ignores length, 1 fully normalises (0.75 usual). */
  b: number;
}

export const BM25_DEFAULTS: Readonly<Bm25Parameters> = Object.freeze({ k1: 1.2, b: 0.75 });

/** Lucene's IDF: log(1 + (N − df + 0.5) / (df + 0.5)), positive even for a term in every document. */
export function bm25Idf(documentCount: number, documentFrequency: number): number {
  return Math.log(1 + (documentCount - documentFrequency + 0.5) / (documentFrequency + 0.5));
}

/**
 * One term's contribution to a document's score: `frequency` occurrences, the term's `idf`, and
 * the document's length divided by the average length (`lengthRatio`).
 */
export function bm25TermScore(
  frequency: number,
  idf: number,
  lengthRatio: number,
  parameters: Bm25Parameters = BM25_DEFAULTS,
): number {
  if (frequency <= 0) return 0;
  const { k1, b } = parameters;
  return (idf * frequency * (k1 + 1)) / (frequency + k1 * (1 - b + b * lengthRatio));
}

/** What BM25 needs of a document: term counts and a length (tokens, characters or bytes, alike for all). */
export interface Bm25Document {
  frequency(term: string): number;
  length: number;
}

/** A text as a BM25 document over `tokenize`'s words: counts of whole words, length in words. */
export function tokenDocument(text: string): Bm25Document {
  const counts = new Map<string, number>();
  const words = tokenize(text);
  for (const word of words) counts.set(word, (counts.get(word) ?? 0) + 1);
  return { frequency: (term) => counts.get(term) ?? 0, length: words.length };
}

/**
 * BM25 scores of `documents` for `terms` (distinct, e.g. from `queryTerms`), in the documents'
 * order. IDF and the average length come from these documents; a term none holds adds nothing.
 */
export function bm25Scores(
  terms: readonly string[],
  documents: readonly Bm25Document[],
  parameters: Bm25Parameters = BM25_DEFAULTS,
): number[] {
  const scores = new Array<number>(documents.length).fill(0);
  if (documents.length === 0) return scores;
  const averageLength = documents.reduce((sum, document) => sum + document.length, 0) / documents.length;
  const ratios = documents.map((document) => (averageLength > 0 ? document.length / averageLength : 1));
  for (const term of new Set(terms)) {
    const frequencies = documents.map((document) => document.frequency(term));
    const containing = frequencies.filter((frequency) => frequency > 0).length;
    if (containing === 0) continue;
    const idf = bm25Idf(documents.length, containing);
    frequencies.forEach((frequency, index) => {
      if (frequency > 0)
        scores[index] = (scores[index] ?? 0) + bm25TermScore(frequency, idf, ratios[index] ?? 1, parameters);
    });
  }
  return scores;
}

export interface RankedText {
  /** Position of the text in the input. */
  index: number;
  score: number;
}

/**
 * Ranks texts for a query by BM25 over `tokenize`'s words: only texts holding a query term, best
 * first, ties in input order.
 */
export function rankBm25(
  terms: readonly string[],
  texts: readonly string[],
  parameters: Bm25Parameters = BM25_DEFAULTS,
): RankedText[] {
  const scores = bm25Scores(terms, texts.map(tokenDocument), parameters);
  return scores
    .map((score, index) => ({ index, score }))
    .filter((ranked) => ranked.score > 0)
    .sort((a, b) => b.score - a.score || a.index - b.index);
}

/** Non-overlapping occurrences of `needle` in `haystack`: term counts in text that is not tokenised. */
export function countOccurrences(haystack: string, needle: string): number {
  if (needle === "") return 0;
  let count = 0;
  for (let at = haystack.indexOf(needle); at !== -1; at = haystack.indexOf(needle, at + needle.length))
    count++;
  return count;
}
