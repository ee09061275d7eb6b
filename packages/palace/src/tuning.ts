/**
 * Heuristics of @atrium/palace: numbers that trade speed or ranking quality and bound nothing a
 * user relies on (the limits are in `limits.ts`).
 */

/** Hits a search returns when not told how many. */
export const SEARCH_DEFAULT_K = 10;

/**
 * Candidates each leg of a hybrid search ranks before fusion: at least this many, or
 * `SEARCH_CANDIDATE_FACTOR` times k. Fusion can only promote what a leg found.
 */
export const SEARCH_MIN_CANDIDATES = 50;
export const SEARCH_CANDIDATE_FACTOR = 4;

/** Drawers per Chroma upsert request. */
export const VECTOR_UPSERT_BATCH = 1_000;

/** Ids per Chroma `get` page when listing every vector (repair). */
export const VECTOR_LIST_PAGE = 5_000;

/** Cosine similarity at or above which `checkDuplicate` calls a drawer a near-duplicate. */
export const DUPLICATE_DEFAULT_THRESHOLD = 0.9;

/** Nearest drawers a duplicate check looks at. */
export const DUPLICATE_CANDIDATES = 5;

/** Applied write-log rows kept for inspection; older ones are pruned when vectors are applied. */
export const WRITE_LOG_KEEP_APPLIED = 1_000;
