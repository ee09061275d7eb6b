/**
 * Reciprocal rank fusion (Cormack, Clarke & Büttcher 2009): combines rankings whose scores are
 * not comparable (vector distances, BM25) by position alone. An item at 0-based position r of a
 * list adds weight / (k + r + 1); k = 60 damps the head so no single list dominates.
 */

export const RRF_DEFAULT_K = 60;

export interface RankFusionOptions<T> {
  /** What identifies an item across lists (an id, a page path). */
  key: (item: T) => string;
  /** Default `RRF_DEFAULT_K`. */
  k?: number;
  /** One weight per list, default 1 each. */
  weights?: readonly number[];
}

export interface FusedOccurrence<T> {
  /** Which list, and the item's 0-based position in it. */
  list: number;
  rank: number;
  item: T;
  contribution: number;
}

export interface Fused<T> {
  key: string;
  score: number;
  /** Where the key was found, list by list, in order. */
  occurrences: FusedOccurrence<T>[];
}

/**
 * Fuses ranked lists, best first; equal scores are ordered by key. A key counts once per list,
 * at its first position (later repeats still occupy their positions).
 */
export function reciprocalRankFusion<T>(
  lists: readonly (readonly T[])[],
  options: RankFusionOptions<T>,
): Fused<T>[] {
  const k = options.k ?? RRF_DEFAULT_K;
  const fused = new Map<string, Fused<T>>();
  lists.forEach((list, listIndex) => {
    const weight = options.weights?.[listIndex] ?? 1;
    const seen = new Set<string>();
    list.forEach((item, rank) => {
      const key = options.key(item);
      if (seen.has(key)) return;
      seen.add(key);
      const contribution = weight / (k + rank + 1);
      const entry = fused.get(key);
      const occurrence = { list: listIndex, rank, item, contribution };
      if (entry) {
        entry.score += contribution;
        entry.occurrences.push(occurrence);
      } else {
        fused.set(key, { key, score: contribution, occurrences: [occurrence] });
      }
    });
  });
  return [...fused.values()].sort(
    (a, b) => b.score - a.score || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0),
  );
}
