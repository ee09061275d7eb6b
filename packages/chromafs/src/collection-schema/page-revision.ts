import { createHash } from "node:crypto";
import type { ChunkingRecord, PathTreeFile } from "../tree/path-tree.js";
import { CHUNK_MAX_BYTES, CHUNK_MERGE_BYTES } from "../tuning.js";

/**
 * Bump when the chunker's output for the same text, or what a chunk's metadata holds, changes:
 * every page then gets a new revision and the next ingest rewrites it. (2: chunks carry `line`.)
 * Recorded in each tree (`chunking`), so trees written by an older chunker stay readable; a
 * change to stored data readers must understand bumps STORAGE_FORMAT_VERSION instead (or too).
 */
export const CHUNKER_VERSION = 2;

/** How this package cuts chunks now: what ingest records in the trees it writes. */
export function currentChunking(): ChunkingRecord {
  return { chunker: CHUNKER_VERSION, maxBytes: CHUNK_MAX_BYTES, mergeBytes: CHUNK_MERGE_BYTES };
}

/** Chunks carry the page line they start at (`line` metadata) from chunker 2 on. */
export function chunksCarryLines(chunking: ChunkingRecord): boolean {
  return chunking.chunker >= 2;
}

/**
 * Identifies one stored version of a page's chunks: its text hash plus everything else written
 * into its chunks (groups, title, chunker settings). Chunk ids carry it, so a rewritten page's
 * new chunks sit next to the old ones until the tree points at them — a crash mid-ingest leaves
 * the old tree reading the old chunks — and readers pick the chunks of the tree's revision.
 * `chunking` is the tree's record of how its chunks were cut.
 */
export function pageRevision(
  file: Pick<PathTreeFile, "hash" | "groups" | "title">,
  chunking: ChunkingRecord,
): string {
  const key = JSON.stringify([
    chunking.chunker,
    chunking.maxBytes,
    chunking.mergeBytes,
    file.hash,
    file.groups ?? [],
    file.title ?? null,
  ]);
  return createHash("sha256").update(key).digest("hex").slice(0, 16);
}

export function chunkId(page: string, revision: string, index: number): string {
  return `${page}#${revision}#${index}`;
}

/** The parts of a chunk id, or undefined for any other record (such as the path tree). */
export function parseChunkId(id: string): { page: string; revision: string; index: number } | undefined {
  const match = /^(\/.*)#([0-9a-f]{16})#(\d+)$/s.exec(id);
  if (!match) return undefined;
  return { page: match[1] as string, revision: match[2] as string, index: Number(match[3]) };
}
