import type { Fused } from "./rank-fusion.js";

/**
 * Convex combination of normalised scores ("CC" in Bruch, Gai & Ingber 2023, who find it beats
 * reciprocal rank fusion when one leg is much stronger than the other: RRF flattens the strong
 * leg's margins to rank positions, so a weak leg's votes reorder its head). Each list's scores
 * are min-max normalised to 0–1 over that list (its best item 1, its worst 0; a list whose items
 * all score alike gives each 1), then weighted and summed per key. Items absent from a list get
 * nothing from it.
 */

export interface ScoreFusionOptions<T> {
  /** What identifies an item across lists (an id, a page path). */
  key: (item: T) => string;
  /** The item's score in its list, higher is better (BM25, cosine similarity). */
  score: (item: T) => number;
  /** One weight per list, default 1 each. */
  weights?: readonly number[];
}

/**
 * Fuses scored lists, best first; equal scores are ordered by key. A key counts once per list, at
 * its best-scored item (its `occurrences` record which list and position that was).
 */
export function scoreFusion<T>(lists: readonly (readonly T[])[], options: ScoreFusionOptions<T>): Fused<T>[] {
  const fused = new Map<string, Fused<T>>();
  lists.forEach((list, listIndex) => {
    const weight = options.weights?.[listIndex] ?? 1;
    const scores = list.map(options.score);
    const max = Math.max(...scores);
    const min = Math.min(...scores);
    const best = new Map<string, number>();
    scores.forEach((score, rank) => {
      const key = options.key(list[rank] as T);
      const previous = best.get(key);
      if (previous === undefined || score > (scores[previous] as number)) best.set(key, rank);
    });
    for (const [key, rank] of best) {
      const normal = max > min ? ((scores[rank] as number) - min) / (max - min) : 1;
      const contribution = weight * normal;
      const occurrence = { list: listIndex, rank, item: list[rank] as T, contribution };
      const entry = fused.get(key);
      if (entry) {
        entry.score += contribution;
        entry.occurrences.push(occurrence);
      } else {
        fused.set(key, { key, score: contribution, occurrences: [occurrence] });
      }
    }
  });
  return [...fused.values()].sort(
    (a, b) => b.score - a.score || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0),
  );
}
