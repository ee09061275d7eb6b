import type { PageChunk, TextFilter } from "../../doc-store/doc-store.js";
import { chunksInOrder, type PageViews } from "../../fs/page-views.js";
import type { GrepAcceleration } from "./grep-acceleration.js";

/**
 * Whether a line the filter accepts could be empty: then the empty lines of a sparse page could
 * match where the real lines would not, and grep needs whole pages. A regex ECMAScript can't
 * compile counts as "could" too.
 */
export function mayMatchEmptyLine(filter: TextFilter): boolean {
  if (filter.kind === "contains") return filter.text === "";
  try {
    const regex = new RegExp(filter.pattern, filter.caseInsensitive ? "iu" : "u");
    return regex.test("") || regex.test("\n");
  } catch {
    return true;
  }
}

/**
 * Sparse pages (see `sparsePage`) for the candidates among `within`, keyed by tree path, from
 * the chunks the store finds in one query; null when the store can't place chunks (no
 * `findChunks`, a collection ingested before chunks carried line numbers, or line metadata that
 * doesn't fit the texts).
 */
export async function sparseViews(
  acceleration: GrepAcceleration,
  filter: TextFilter,
  within: readonly string[],
): Promise<Map<string, readonly PageChunk[]> | null> {
  const found = await acceleration.store.findChunks?.(filter, acceleration.access, within);
  if (!found) return null;
  for (const chunks of found.values()) if (!chunksInOrder(chunks)) return null;
  return found satisfies PageViews;
}
