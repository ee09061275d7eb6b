import { createHash } from "node:crypto";

/**
 * What a grep index was built for: every page's path, revision and chunk count, hashed. A store
 * uses an index only when its tree digests the same, so an index left from another ingest (a
 * crash between writing it and writing the tree, a re-ingest in progress) is never trusted.
 * Chunk ordinals count the chunks of the pages in this sorted order.
 */
export function treeDigest(pages: Iterable<{ path: string; revision: string; chunks: number }>): string {
  const rows = [...pages].map((page) => [page.path, page.revision, page.chunks] as const);
  rows.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return createHash("sha256").update(JSON.stringify(rows)).digest("hex");
}
