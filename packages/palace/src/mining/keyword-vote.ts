import type { TopicRoom } from "./topic-vocabulary.js";

/**
 * The keyword vote behind room assignment: each room scores the (weighted) occurrences of its
 * keywords in the texts, the highest score wins if it reaches `minScore`. Words are compared in a
 * lightly normalised form (lower case, a plural "s"/"ies" taken off) so "recipes" votes for
 * "recipe". A keyword with a space in it counts as a phrase.
 */

export interface WeightedText {
  text: string;
  weight: number;
}

/** Votes below this are too thin to call a topic; the caller falls back. */
export const DEFAULT_MIN_VOTE = 2;

export function keywordVote(
  texts: readonly WeightedText[],
  rooms: readonly TopicRoom[],
  minScore = DEFAULT_MIN_VOTE,
): string | undefined {
  const counts = new Map<string, number>();
  const lowered = texts.map(({ text, weight }) => ({ text: text.toLowerCase(), weight }));
  for (const { text, weight } of lowered) {
    for (const word of text.match(/[\p{L}\p{N}]+/gu) ?? []) {
      const key = normalizeWord(word);
      counts.set(key, (counts.get(key) ?? 0) + weight);
    }
  }
  let best: string | undefined;
  let bestScore = 0;
  for (const room of rooms) {
    let score = 0;
    for (const keyword of room.keywords) {
      const lower = keyword.toLowerCase().trim();
      if (lower === "") continue;
      score += /\s/.test(lower) ? phraseCount(lowered, lower) : (counts.get(normalizeWord(lower)) ?? 0);
    }
    if (score > bestScore) {
      best = room.name;
      bestScore = score;
    }
  }
  return bestScore >= minScore ? best : undefined;
}

export function normalizeWord(word: string): string {
  if (word.length > 4 && word.endsWith("ies")) return `${word.slice(0, -3)}y`;
  if (word.length > 3 && word.endsWith("s") && !/(ss|us|is)$/.test(word)) return word.slice(0, -1);
  return word;
}

function phraseCount(texts: readonly WeightedText[], phrase: string): number {
  let total = 0;
  for (const { text, weight } of texts) {
    for (let at = text.indexOf(phrase); at !== -1; at = text.indexOf(phrase, at + phrase.length))
      total += weight;
  }
  return total;
}
