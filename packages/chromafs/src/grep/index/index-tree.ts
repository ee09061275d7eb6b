import { pageRevision } from "../../collection-schema/page-revision.js";
import type { StoredPathTree } from "../../tree/path-tree.js";
import { GrepIndexBuilder } from "./grep-index-builder.js";
import { encodeGrepIndex } from "./grep-index-codec.js";
import { treeDigest } from "./tree-digest.js";

/** The digest a grep index of `tree` carries (see `treeDigest`). */
export function digestOfTree(tree: StoredPathTree, revisions?: ReadonlyMap<string, string>): string {
  return treeDigest(
    Object.entries(tree.files).map(([path, file]) => ({
      path,
      revision: revisions?.get(path) ?? pageRevision(file, tree.chunking),
      chunks: file.chunks,
    })),
  );
}

/**
 * The encoded grep index of a tree (whose `digestOfTree` is `digest`) whose pages were cut into
 * `chunksOf(path)` (with the line each chunk starts at), ready for `writeStoredGrepIndex`.
 */
export function indexTree(
  tree: StoredPathTree,
  digest: string,
  chunksOf: (path: string) => { texts: readonly string[]; lines: readonly number[] },
): string {
  const builder = new GrepIndexBuilder();
  for (const path of Object.keys(tree.files).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))) {
    const { texts, lines } = chunksOf(path);
    builder.addPage(texts, lines);
  }
  return encodeGrepIndex(builder.finish(digest));
}
