import type { ChunkingRecord, PathTree } from "./path-tree.js";
import { STORAGE_FORMAT_VERSION } from "./storage-format.js";

/**
 * One step per older storage format, each turning a (validated) tree of format N into one of
 * format N+1. Migration happens on read only: nothing is written back, and the chunks keep the
 * ids they were stored under, which is why a migrated tree records how they were cut.
 * The history of the formats is in docs/storage-format.md.
 */
const STEPS: Record<number, (tree: Record<string, unknown>) => Record<string, unknown>> = {
  1: fromFormat1,
};

/**
 * Format 1 (tree `version: 1`, no format in the collection metadata) recorded neither its chunk
 * settings nor, before the groups mapping was stored with the collection, the mapping:
 * - with `groupRules`, it was written after chunks carried `line`: chunker 2, at the sizes
 *   format 1 always used;
 * - without, the chunker (1: chunks without `line`, or 2) can't be told from the tree: chunking
 *   stays absent and the store finds it from the chunk ids (stored-tree.ts), and `groupRules`
 *   stays absent, which ingest reads as "mapping unknown" (stored-groups.ts).
 */
function fromFormat1(tree: Record<string, unknown>): Record<string, unknown> {
  const { version: _version, ...rest } = tree;
  const migrated: Record<string, unknown> = { ...rest, version: 2 };
  if (tree.groupRules !== undefined) migrated.chunking = format1Chunking(2);
  return migrated;
}

/** The chunk settings every format-1 ingest used (the limits of the time, not today's). */
export function format1Chunking(chunker: 1 | 2): ChunkingRecord {
  return { chunker, maxBytes: 8 * 1024, mergeBytes: 4 * 1024 };
}

/** `tree`, written in format `version`, as a tree of the current format. */
export function migratePathTree(tree: Record<string, unknown>, version: number): PathTree {
  let current = tree;
  for (let from = version; from < STORAGE_FORMAT_VERSION; from++) {
    const step = STEPS[from];
    if (!step) throw new Error(`no migration from storage format ${from}`);
    current = step(current);
  }
  return current as unknown as PathTree;
}
