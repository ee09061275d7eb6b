import type { PathTree } from "../tree/path-tree.js";
import type { SearchOptions } from "./search-ranking.js";

/**
 * Who is asking. Public pages (no groups) are always visible; a page with groups is visible
 * when the session shares at least one of them. Every store query takes this, so a hidden page
 * can never come back from any call, not only from the tree.
 */
export interface Access {
  groups: readonly string[];
}

/**
 * A coarse text filter the store evaluates over page content to narrow grep's candidates.
 * `regex` uses the syntax shared by Rust's regex crate and ECMAScript (no backreferences,
 * no lookaround); callers translate grep patterns into it and fall back to a full scan when
 * they can't do so exactly. A regex's `literals`, when given, are strings every match holds
 * one of (as case-insensitive as the regex): a store may answer with the texts holding one of
 * them, a superset of the regex's, which grep narrows itself.
 */
export type TextFilter =
  | { kind: "contains"; text: string; caseInsensitive: boolean }
  | { kind: "regex"; pattern: string; caseInsensitive: boolean; literals?: readonly string[] };

/** One stored chunk of a page: its text and the line number (1-based) its first line has in the page. */
export interface PageChunk {
  index: number;
  line: number;
  text: string;
}

export interface SearchHit {
  path: string;
  /** The matching chunk's text (or a window of it). */
  snippet: string;
  score: number;
}

/**
 * The seam between the filesystem and where the docs live. `ChromaDocStore` is the main
 * implementation; `LocalFolderStore` (a plain directory) proves the seam: the same oracle suite
 * passes on both, so an agent's prompt never changes when the backend does.
 */
export interface DocStore {
  /** Where the store is, for error messages ("chroma http://127.0.0.1:8000 collection docs"). */
  readonly description: string;
  /** The whole tree, unpruned; throws (never returns an empty tree) when it is missing or corrupt. */
  readTree(): Promise<PathTree>;
  /** Full texts of the given pages that `access` may see; invisible or unknown paths are absent. */
  readPages(paths: readonly string[], access: Access): Promise<Map<string, string>>;
  /**
   * Paths of visible pages whose content may match `filter` (a superset of the true matches is
   * allowed, a missing match is not). `within` restricts the answer to those paths.
   */
  findPages(filter: TextFilter, access: Access, within?: readonly string[]): Promise<string[]>;
  /**
   * Like `findPages`, but answers with the chunks that may match (in index order, per page), so
   * grep can read those instead of whole pages. Optional; returns null when the store can't say
   * where its chunks start (a collection ingested before chunks carried line numbers).
   */
  findChunks?(
    filter: TextFilter,
    access: Access,
    within?: readonly string[],
  ): Promise<Map<string, PageChunk[]> | null>;
  /** Semantic (or hybrid) search over visible pages; `options.ranking` picks one leg alone. */
  search(query: string, access: Access, limit: number, options?: SearchOptions): Promise<SearchHit[]>;
  close?(): Promise<void>;
}
