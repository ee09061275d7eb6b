import type { Collection } from "@atrium/chroma";
import type { TextFilter } from "../../doc-store/doc-store.js";
import { regexLiteral } from "../../doc-store/regex-literal.js";
import { filterLiterals } from "../../doc-store/text-filter-matcher.js";
import { GrepIndexError } from "../../errors.js";
import type { StoredPathTree } from "../../tree/path-tree.js";
import { ChunkOrdinals } from "./chunk-ordinals.js";
import { GrepIndex } from "./grep-index.js";
import { digestOfTree } from "./index-tree.js";
import { readStoredGrepIndex } from "./stored-grep-index.js";
/** A collection's grep index with the numbering of the tree it was checked against. */
export interface LoadedGrepIndex {
  index: GrepIndex;
  ordinals: ChunkOrdinals;
}

/** A chunk the index says may hold the literal. */
export interface IndexedChunk {
  page: string;
  index: number;
  /** The page line the chunk starts at. */
  line: number;
}

/**
 * The collection's grep index when it was built for exactly this tree; null when there is none
 * (a collection ingested before grep indexes), it belongs to another ingest, or it is damaged.
 * The store then narrows with server queries as before.
 */
export async function loadGrepIndex(
  collection: Collection,
  tree: StoredPathTree,
  revisions: ReadonlyMap<string, string>,
  maxBytes: number,
): Promise<LoadedGrepIndex | null> {
  const stored = await readStoredGrepIndex(collection);
  if (stored === undefined) return null;
  let index: GrepIndex;
  try {
    index = GrepIndex.decode(stored, maxBytes);
  } catch (error) {
    if (error instanceof GrepIndexError) return null;
    throw error;
  }
  const ordinals = new ChunkOrdinals(Object.entries(tree.files).map(([path, file]) => [path, file.chunks]));
  if (index.digest !== digestOfTree(tree, revisions) || index.chunkCount !== ordinals.total) return null;
  return { index, ordinals };
}

/**
 * The chunks of pages `inScope` accepts that may hold one of the filter's literals (its text, or
 * a regex's `literals`), in page then chunk order; null when the index can't narrow this filter
 * (a regex without literals, or a literal without a word character): the caller asks the server
 * instead.
 */
export function indexedCandidates(
  loaded: LoadedGrepIndex,
  filter: TextFilter,
  inScope: (path: string) => boolean,
): IndexedChunk[] | null {
  const literals = filterLiterals(filter);
  if (!literals) return null;
  let flags: Uint8Array | null = null;
  for (const literal of literals) {
    const found = loaded.index.chunksFor(literal);
    if (!found) return null;
    if (!flags) flags = found;
    else
      for (let chunk = 0; chunk < found.length; chunk++)
        flags[chunk] = (flags[chunk] as number) | (found[chunk] as number);
  }
  if (!flags) return null;
  const { ordinals } = loaded;
  const chunks: IndexedChunk[] = [];
  let page = -1;
  let path = "";
  let visible = false;
  for (let ordinal = flags.indexOf(1); ordinal !== -1; ordinal = flags.indexOf(1, ordinal + 1)) {
    const owner = ordinals.pageOf(ordinal);
    if (owner !== page) {
      page = owner;
      path = ordinals.paths[owner] as string;
      visible = inScope(path);
    }
    if (!visible) continue;
    chunks.push({
      page: path,
      index: ordinal - ordinals.firstOf(owner),
      line: loaded.index.chunkLines[ordinal] as number,
    });
  }
  return chunks;
}

/**
 * Whether a chunk's text holds one of the filter's literals, as the server's `$contains` / `(?i)`
 * would say: exactly the server's answer for a `contains` filter, a superset of it for a regex.
 */
export function literalTest(filter: TextFilter): (text: string) => boolean {
  const literals = filterLiterals(filter) ?? [];
  if (!filter.caseInsensitive) return (text) => literals.some((literal) => text.includes(literal));
  const pattern = new RegExp(literals.map(regexLiteral).join("|"), "iu");
  return (text) => pattern.test(text);
}
