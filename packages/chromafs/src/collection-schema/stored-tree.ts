import type { Collection } from "@atrium/chroma";
import { type ChunkingRecord, PATH_TREE_ID, type PathTree, type StoredPathTree } from "../tree/path-tree.js";
import { decodePathTree } from "../tree/path-tree-codec.js";
import { format1Chunking } from "../tree/path-tree-migrations.js";
import { chunkId, pageRevision } from "./page-revision.js";

/**
 * The tree stored in `collection` (validated, migrated to the current format), or undefined
 * when it has none. The one place both ingest and the store read a tree from Chroma.
 */
export async function readStoredTree(
  collection: Collection,
  name: string,
): Promise<StoredPathTree | undefined> {
  const result = await collection.get({ ids: [PATH_TREE_ID], include: ["documents"] });
  if (result.ids.length === 0) return undefined;
  const tree = decodePathTree(result.documents[0], name);
  return { ...tree, chunking: tree.chunking ?? (await probeFormat1Chunking(collection, tree)) };
}

/**
 * A format-1 tree written before the groups mapping was stored doesn't say whether its chunks
 * came from chunker 1 or 2, and their ids differ. One id query settles it: the first chunk of a
 * page under each candidate revision. Every page of such a tree was written by the same chunker
 * (an ingest rewrote every page whose revision differed from its own). When neither id exists
 * the chunks are gone either way; chunker 2 then makes reads report them missing.
 */
async function probeFormat1Chunking(collection: Collection, tree: PathTree): Promise<ChunkingRecord> {
  const newer = format1Chunking(2);
  const older = format1Chunking(1);
  const sample = Object.entries(tree.files).find(([, file]) => file.chunks > 0);
  if (!sample) return newer;
  const [path, file] = sample;
  const newerId = chunkId(path, pageRevision(file, newer), 0);
  const olderId = chunkId(path, pageRevision(file, older), 0);
  const found = new Set((await collection.get({ ids: [newerId, olderId], include: [] })).ids);
  return !found.has(newerId) && found.has(olderId) ? older : newer;
}
