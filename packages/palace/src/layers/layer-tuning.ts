/**
 * Heuristics of the layers and the wake-up: how lines are chosen and cut. They trade what the
 * wake-up says, bound nothing a user relies on (the budget itself is checked against
 * `maxWakeUpTokens` in limits.ts).
 */

/** Tokens one drawer line may take, so one long drawer cannot crowd every other line out. */
export const WAKE_UP_LINE_MAX_TOKENS = 40;

/** A line cut to fewer tokens than this is left out instead: a stub says nothing. */
export const WAKE_UP_MIN_CUT_TOKENS = 2;

/** ...and a drawer line must keep this many tokens after its "- Speaker: " label. */
export const DRAWER_MIN_CONTENT_TOKENS = 4;

/** People named by a derived identity (L0), most turns first. */
export const IDENTITY_MAX_PEOPLE = 8;

/** Facts about the user entity the wake-up offers (L0). */
export const USER_FACTS = 8;

/** The most connected facts of the knowledge graph the wake-up offers (L1). */
export const TOP_FACTS = 8;

/** Pinned drawers the wake-up offers (L1), newest first. */
export const PINNED_CANDIDATES = 50;

/** Drawers each signal (most accessed, most recent) offers before scoring (L1). */
export const SCORED_CANDIDATES = 50;

/**
 * How a drawer's importance is scored (L1): access counts (log-scaled against the most accessed
 * candidate), how recent the memory is (against the newest in scope, so a mined 2023 conversation
 * is not all "old"), and how recently a search returned it (against now).
 */
export const ESSENTIAL_WEIGHTS = { access: 1, recency: 1, recentAccess: 0.5 } as const;
export const RECENCY_HALF_LIFE_MS = 30 * 24 * 3600 * 1000;
export const ACCESS_HALF_LIFE_MS = 7 * 24 * 3600 * 1000;

/** Drawers `recallRoom` returns when not told how many. */
export const ROOM_RECALL_DEFAULT_LIMIT = 10;

/** The knowledge-graph entity (a name or an alias) taken to be the user when none is given. */
export const DEFAULT_USER_ENTITY = "user";
