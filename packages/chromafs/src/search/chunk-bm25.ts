import { bm25TermScore, countOccurrences } from "@atrium/spec/ranking";

/** Score multiplier for a chunk holding the whole multi-word query as a phrase. */
export const PHRASE_BONUS = 1.5;

/**
 * BM25 of one chunk for query words with known IDF weights (a store that can only count which
 * chunks hold a word learns IDF from those counts): substring counts of each word in the lowered
 * text, length in bytes against the collection's average; times PHRASE_BONUS when `phrase` occurs.
 */
export function chunkBm25(
  text: string,
  idf: ReadonlyMap<string, number>,
  averageBytes: number,
  phrase?: string,
): number {
  const lower = text.toLowerCase();
  const lengthRatio = Buffer.byteLength(text) / Math.max(1, averageBytes);
  let score = 0;
  for (const [word, weight] of idf)
    score += bm25TermScore(countOccurrences(lower, word), weight, lengthRatio);
  return phrase && lower.includes(phrase) ? score * PHRASE_BONUS : score;
}
