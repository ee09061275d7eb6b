/**
 * Heuristics of @atrium/chromafs: numbers that trade speed, storage or ranking quality and bound
 * nothing a user relies on (the limits are in `limits.ts`). Changing one changes performance or
 * results, never what is allowed.
 */

/** Pages per `readPages` call when grep prefetches its candidates (batches run in parallel). */
export const PAGE_FETCH_BATCH = 50;

/** Pages at least this large are marked `lazy` in a LocalFolderStore tree (fetched on first read). */
export const LAZY_PAGE_MIN_BYTES = 256 * 1024;

/** Hits the `search` command prints (and the tool returns) when not told how many. */
export const SEARCH_DEFAULT_HITS = 10;

/** Characters of the one-line snippet `search` prints per hit. */
export const SEARCH_SNIPPET_CHARS = 160;

/**
 * Largest chunk in UTF-8 bytes; bigger sections are split at line boundaries (a single longer
 * line stays whole). Part of a page's revision: changing it re-chunks every page on next ingest.
 */
export const CHUNK_MAX_BYTES = 8 * 1024;

/**
 * Consecutive heading sections are merged into one chunk while it stays under this many bytes:
 * fewer, fuller chunks make every document filter faster (10,107 → about 4,000 chunks for the
 * Mintlify docs), and a chunk still starts at a heading.
 */
export const CHUNK_MERGE_BYTES = 4 * 1024;

/** Pages read from disk at once during ingest. */
export const INGEST_READ_CONCURRENCY = 8;

/** Chunks sent per upsert; also capped by the server's own max batch size. */
export const UPSERT_BATCH = 1_000;

/** Ids per delete request. */
export const DELETE_BATCH = 2_000;

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

/**
 * Weights of the two search legs in score fusion (`fuseHits`): the keyword leg (BM25) and the
 * vector leg, by embedding. The offline hashing embedding is lexical and weaker than IDF-weighted
 * keywords, so it gets half a say; a neural embedding gets an equal one.
 */
export const SEARCH_KEYWORD_WEIGHT = 1;
export const SEARCH_HASHING_VECTOR_WEIGHT = 0.5;
export const SEARCH_NEURAL_VECTOR_WEIGHT = 1;
/**
 * Weight of the page-outline list (BM25 over a page's name, title, description and headings) in
 * the fusion: a second view of the keywords, half the say of the chunk text's own BM25.
 */
export const SEARCH_OUTLINE_WEIGHT = 0.5;
/** Page outlines the Chroma store keeps between searches (each is a few hundred bytes). */
export const SEARCH_OUTLINE_CACHE_PAGES = 20_000;

/** Characters of a chunk returned as a search snippet. */
export const SEARCH_SNIPPET_MAX_CHARS = 600;

/**
 * A pool worker lets its event loop run (messages: a cancellation, another session's command)
 * at a filesystem call once a command has computed this long without yielding. Shorter slices
 * interleave commands more finely and cost a little throughput.
 */
export const WORKER_TIME_SLICE_MS = 20;
