import type { DrawerDraft } from "./drawer.js";

export interface Neighbours<T> {
  previous?: T;
  next?: T;
}

/**
 * Each draft's previous and next draft in the same source, by position (drafts without a
 * position keep their order in the batch). Drafts without a source have no neighbours.
 */
export function batchNeighbours<T extends DrawerDraft>(drafts: readonly T[]): Neighbours<T>[] {
  const result: Neighbours<T>[] = drafts.map(() => ({}));
  const bySource = new Map<string, number[]>();
  drafts.forEach((draft, index) => {
    if (draft.source === undefined) return;
    const list = bySource.get(draft.source);
    if (list) list.push(index);
    else bySource.set(draft.source, [index]);
  });
  for (const indices of bySource.values()) {
    const ordered = [...indices].sort(
      (a, b) => (drafts[a]?.position ?? a) - (drafts[b]?.position ?? b) || a - b,
    );
    ordered.forEach((index, at) => {
      const entry = result[index] as Neighbours<T>;
      if (at > 0) entry.previous = drafts[ordered[at - 1] as number];
      if (at < ordered.length - 1) entry.next = drafts[ordered[at + 1] as number];
    });
  }
  return result;
}
