/**
 * The path tree: every page's path with its size, mtime and access groups, stored in the
 * collection as ONE gzipped JSON document (id `__path_tree__`) so a session starts with a single
 * fetch. Directories are implied by file paths. Versioned: readers reject versions they don't know.
 */
export const PATH_TREE_ID = "__path_tree__";
export const PATH_TREE_VERSION = 1;

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

export interface PathTree {
  version: typeof PATH_TREE_VERSION;
  /** Absolute POSIX paths ("/guides/intro.mdx") to their entries. */
  files: Record<string, PathTreeFile>;
  /**
   * The groups mapping (glob → groups) the last ingest applied, remembered with the collection
   * so an ingest without a groups file keeps applying it. Absent: no mapping (older trees too).
   * Only ingest reads it; sessions see pruned trees, which never carry it.
   */
  groupRules?: Record<string, string[]>;
}
