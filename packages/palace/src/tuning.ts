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

/**
 * A filtered vector search, measured on Chroma 1.0 (30k vectors): its metadata pre-filter
 * (`where`) costs 25–120 ms and grows with the collection, while an id pre-filter of up to 10k
 * ids costs about 10 ms and an unfiltered query for 1,000 neighbours about 8 ms. So the palace
 * finds the allowed ids in SQLite and passes them when there are at most
 * `VECTOR_ID_FILTER_MAX`; with more, it asks for `VECTOR_OVERSAMPLE` times the neighbours the
 * filter's share of the palace calls for (up to `VECTOR_POSTFILTER_MAX`) and filters them itself,
 * and only when that is not enough falls back to `where`.
 */
export const VECTOR_ID_FILTER_MAX = 10_000;
export const VECTOR_OVERSAMPLE = 2;
export const VECTOR_POSTFILTER_MAX = 3_000;

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
