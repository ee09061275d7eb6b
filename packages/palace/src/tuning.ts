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
 * A filtered vector search, measured on Chroma 1.0 at 100k vectors (a loaded machine): its
 * metadata pre-filter (`where`, a wing of 10%) took 214 ms p50; an id pre-filter 22 ms for 1,000
 * ids, 69 ms for 10,000 and, oddly, 96 ms for 300; an unfiltered query for 1,000 neighbours 11 ms.
 * So the palace first asks for `VECTOR_OVERSAMPLE` times the neighbours the filter's share of the
 * palace calls for (at most `MAX_VECTOR_POSTFILTER`) and filters them itself; when that is not
 * enough it passes the allowed ids (at most `MAX_VECTOR_ID_FILTER`, found in SQLite); only
 * beyond that does it use `where`.
 */
export const MAX_VECTOR_ID_FILTER = 10_000;
export const VECTOR_OVERSAMPLE = 2;
export const MAX_VECTOR_POSTFILTER = 3_000;

/**
 * Scopes of at most this many drawers are scored from the vectors palace.sqlite keeps
 * (`local-vectors.ts`), before any of the Chroma paths above. Measured at 100k drawers on a
 * loaded machine (load average 13 on 2 cores), node CPU per query: 400 drawers 2–3 ms, 2,000
 * 14 ms, 10,000 65–70 ms, about 6 µs a drawer, most of it SQLite reading the 1.5 KB blobs. So
 * up to a few thousand it beats Chroma's filtered queries (an id filter of 1,000 ids: 22 ms of
 * Chroma's CPU); wider scopes go to them.
 */
export const MAX_LOCAL_VECTOR_SCOPE = 2_500;

/**
 * FTS rows a BM25 query may match, summed over its terms (`match-budget.ts`): past it, the most
 * common terms are left out. Rows are scored at about 2–4 µs each on a loaded 2-core machine, so
 * this keeps the BM25 leg near 50–100 ms of work at worst; LoCoMo's palaces (≤ 3,000 drawers) and
 * most queries on larger ones never reach it.
 */
export const BM25_MATCH_BUDGET = 25_000;

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
