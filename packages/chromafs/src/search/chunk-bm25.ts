import { bm25TermScore } from "@atrium/kit";
import { type TermForm, termCounts } from "./keyword-terms.js";

/**
 * BM25 of one text for query terms with known IDF weights (a store that can only count which
 * chunks hold a word learns IDF from those counts): counts of whole words (`termCounts`), length
 * in UTF-8 bytes against the average. Nothing else: no phrase, title or heading bonus, so with
 * `form` "plain" this is the textbook ranking the fusion is measured against.
 */
export function chunkBm25(
  text: string,
  idf: ReadonlyMap<string, number>,
  averageBytes: number,
  form: TermForm,
): number {
  const counts = termCounts(text, form);
  const lengthRatio = Buffer.byteLength(text) / Math.max(1, averageBytes);
  let score = 0;
  for (const [term, weight] of idf) score += bm25TermScore(counts.get(term) ?? 0, weight, lengthRatio);
  return score;
}
