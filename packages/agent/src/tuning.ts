/**
 * Heuristics of @atrium/agent: numbers that shape timing or estimates and bound nothing a user
 * relies on (the limits are in `limits.ts`). Changing one changes how the agent behaves under
 * load or what it reports, never what is allowed.
 */

/** ScriptedModel's usage estimate: characters per token of text (a common rule of thumb). */
export const SCRIPTED_CHARS_PER_TOKEN = 4;

/** ScriptedModel's usage estimate for one image part (OpenAI's low-detail image cost). */
export const SCRIPTED_IMAGE_TOKENS = 85;

/** Model calls: attempts in all (the first included) on 429, 5xx, timeouts and network errors. */
export const MODEL_RETRY_MAX_ATTEMPTS = 4;

/** Backoff before the second attempt; doubled for each later one, with jitter. */
export const MODEL_RETRY_BASE_DELAY_MS = 1_000;

/** Ceiling of the exponential backoff. */
export const MODEL_RETRY_MAX_DELAY_MS = 30_000;

/** Ceiling of a wait the provider asked for with Retry-After / retry-after-ms. */
export const MODEL_RETRY_MAX_AFTER_MS = 60_000;
