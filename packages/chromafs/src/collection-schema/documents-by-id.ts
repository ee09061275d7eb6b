import type { Collection } from "@atrium/chroma";
import { STORE_IDS_PER_QUERY, STORE_PARALLEL_QUERIES } from "../tuning.js";
import { inParallel } from "./in-parallel.js";

/**
 * The documents of the records `ids` names, in batches of STORE_IDS_PER_QUERY with
 * STORE_PARALLEL_QUERIES in flight. A record that is missing, or served without its document,
 * is absent from the answer (missing, never empty: callers decide what that means).
 */
export async function documentsById(
  collection: Collection,
  ids: readonly string[],
): Promise<Map<string, string>> {
  const texts = new Map<string, string>();
  const batches: string[][] = [];
  for (let start = 0; start < ids.length; start += STORE_IDS_PER_QUERY) {
    batches.push(ids.slice(start, start + STORE_IDS_PER_QUERY));
  }
  await inParallel(batches, STORE_PARALLEL_QUERIES, async (batch) => {
    const result = await collection.get({ ids: batch, include: ["documents"] });
    result.ids.forEach((id, row) => {
      const text = result.documents[row];
      if (typeof text === "string") texts.set(id, text);
    });
  });
  return texts;
}
