/**
 * Every limit of @atrium/chromafs in one place. Untrusted input reaches this package from two
 * sides (the docs themselves and the commands an agent types), so sizes and counts are bounded.
 */

/** Bytes of page text a store's shared LRU cache keeps (all sessions of one TreeCache). */
export const SHARED_PAGE_CACHE_MAX_BYTES = 128 * 1024 * 1024;

/** Pages per `readPages` call when grep prefetches its candidates (batches run in parallel). */
export const PAGE_FETCH_BATCH = 50;

/** Pages at least this large are marked `lazy` in a LocalFolderStore tree (fetched on first read). */
export const LAZY_PAGE_MIN_BYTES = 256 * 1024;

/** Output the agent `bash` tool and the MCP shell return per stream; the rest is cut with a note. */
export const TOOL_OUTPUT_MAX_BYTES = 32 * 1024;

/** Wall-clock limit for one command run through the tool, MCP server or CLI. */
export const COMMAND_TIMEOUT_MS = 30_000;

/** Hits the `search` command prints by default, and the most it prints whatever `-n` asks for. */
export const SEARCH_DEFAULT_HITS = 10;
export const SEARCH_MAX_HITS = 50;

/** Characters of the one-line snippet `search` prints per hit. */
export const SEARCH_SNIPPET_CHARS = 160;

/** The longest grep pattern the accelerator translates; longer ones run the plain scan. */
export const GREP_PATTERN_MAX_CHARS = 1_000;

/** Bytes of stdout/stderr the CLI's interactive shell prints per command before cutting. */
export const SHELL_OUTPUT_MAX_BYTES = 8 * 1024 * 1024;

/** just-bash execution limits for a docs session: generous for reading, bounded for loops. */
export const SESSION_EXECUTION_LIMITS = {
  maxCommandCount: 10_000,
  maxLoopIterations: 10_000,
  maxOutputSize: 16 * 1024 * 1024,
  maxExecutionTimeMs: COMMAND_TIMEOUT_MS,
  maxFileSystemBytes: 64 * 1024 * 1024,
} as const;

// Ingest and the Chroma store.

/** Largest chunk in UTF-8 bytes; bigger sections are split at line boundaries (a single longer line stays whole). */
export const CHUNK_MAX_BYTES = 8 * 1024;

/**
 * Consecutive heading sections are merged into one chunk while it stays under this many bytes:
 * fewer, fuller chunks make every document filter faster (10,107 → about 4,000 chunks for the
 * Mintlify docs), and a chunk still starts at a heading.
 */
export const CHUNK_MERGE_BYTES = 4 * 1024;

/** Largest page ingest accepts; a bigger file is refused with an error naming it. */
export const INGEST_PAGE_MAX_BYTES = 32 * 1024 * 1024;

/** Most pages one ingest accepts (the tree is fetched whole at session start). */
export const INGEST_MAX_PAGES = 200_000;

/** Pages read from disk at once during ingest. */
export const INGEST_READ_CONCURRENCY = 8;

/** Chunks sent per upsert; also capped by the server's own max batch size. */
export const UPSERT_BATCH = 1_000;

/** Ids per delete request. */
export const DELETE_BATCH = 2_000;

/** Largest decompressed tree JSON accepted, in bytes (a corrupt or hostile tree can't balloon memory). */
export const TREE_JSON_MAX_BYTES = 256 * 1024 * 1024;

/** Chunk ids per `get` when the store fetches pages (documents dominate the cost; batches run in parallel). */
export const STORE_IDS_PER_QUERY = 250;

/** `get` requests the store keeps in flight at once when fetching many pages. */
export const STORE_PARALLEL_QUERIES = 2;

/**
 * Longest page list the store puts in an access filter (`page $nin hidden` or `page $in visible`);
 * beyond it, it filters on the per-group boolean keys, which the pinned server evaluates slower.
 */
export const ACCESS_LIST_MAX_PATHS = 5_000;

/** Candidates the store's search fetches from each of the vector and keyword passes before merging. */
export const SEARCH_CANDIDATES = 50;

/**
 * Cosine distance within which a vector hit counts as evidence without holding a query word
 * (similarity 0.5 or more: a strong match for a neural embedding; nonsense queries over the
 * hashing embedding land at 0.75 and beyond). Pages with no evidence are never search hits.
 */
export const SEARCH_EVIDENCE_MAX_DISTANCE = 0.5;

/** Query words the keyword half of search looks up (one id-only query each). */
export const SEARCH_MAX_QUERY_WORDS = 8;

/** Characters of a chunk returned as a search snippet. */
export const SEARCH_SNIPPET_MAX_CHARS = 600;
