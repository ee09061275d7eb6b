import type { STORAGE_FORMAT_VERSION } from "./storage-format.js";

/**
 * The path tree: every page's path with its size, mtime and access groups, stored in the
 * collection as ONE gzipped JSON document (id `__path_tree__`) so a session starts with a single
 * fetch. Directories are implied by file paths. Its `version` is the storage format version:
 * readers migrate older trees and refuse newer ones (docs/storage-format.md).
 */
export const PATH_TREE_ID = "__path_tree__";

export interface PathTreeFile {
  /** Size in bytes of the page's UTF-8 text (what `stat` and `ls -l` report). */
  size: number;
  /** Last modification time, milliseconds since the epoch. */
  mtime: number;
  /** Groups allowed to see the page; absent or empty means public. */
  groups?: string[];
  /** Number of chunks the page is stored as (chunk_index 0..chunks-1). */
  chunks: number;
  /** Large file whose content is fetched only on first read. */
  lazy?: boolean;
  /** The page title (front-matter `title` or first heading), for search output. */
  title?: string;
  /** SHA-256 of the page text, so re-ingest rewrites only what changed. */
  hash: string;
}

/**
 * How the tree's chunks were cut. Chunk ids carry a revision derived from it (page-revision.ts),
 * so a reader must use the settings the chunks were written with, not its own: a different
 * chunk size in a newer package would otherwise make every stored page look missing.
 */
export interface ChunkingRecord {
  /** Version of the chunker's output and chunk metadata (2: chunks carry `line`). */
  chunker: number;
  /** Largest chunk in UTF-8 bytes. */
  maxBytes: number;
  /** Heading sections were merged while a chunk stayed under this many bytes. */
  mergeBytes: number;
}

export interface PathTree {
  version: typeof STORAGE_FORMAT_VERSION;
  /** Absolute POSIX paths ("/guides/intro.mdx") to their entries. */
  files: Record<string, PathTreeFile>;
  /**
   * The groups mapping (glob → groups) the last ingest applied, remembered with the collection
   * so an ingest without a groups file keeps applying it. Every stored tree of format 2 has one
   * (`{}`: no mapping); absent only in a tree migrated from format 1 that was written before
   * mappings were stored, where it is unknown. Only ingest reads it; sessions see pruned trees,
   * which never carry it.
   */
  groupRules?: Record<string, string[]>;
  /**
   * How the chunks were cut; every stored tree of format 2 records it. Absent in trees no
   * chunks back (a LocalFolderStore's, pruned ones) and, until the store probes its chunk ids,
   * in a tree migrated from format 1 written before the groups mapping was stored.
   */
  chunking?: ChunkingRecord;
}

/** A tree read from a collection: its chunking is always known. */
export type StoredPathTree = PathTree & { chunking: ChunkingRecord };

/** What ingest writes: a format-2 tree records both its chunking and its groups mapping. */
export type WrittenPathTree = StoredPathTree & { groupRules: Record<string, string[]> };
