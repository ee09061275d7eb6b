/**
 * Every default limit of @atrium/agent, in one place. Each section belongs to one area; the
 * numbers are defaults that options override.
 */

// ── QuickJS executor ──────────────────────────────────────────────────────────────────────────

// ── Agent loop ────────────────────────────────────────────────────────────────────────────────

// ── Models ────────────────────────────────────────────────────────────────────────────────────

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

/** One model request (one attempt), start to end, streamed or not. */
export const MODEL_REQUEST_TIMEOUT_MS = 300_000;

/** The longest silence between two chunks of a streamed answer (one attempt). */
export const MODEL_STREAM_CHUNK_TIMEOUT_MS = 60_000;

/** A `scripted:<path>` reply file larger than this is refused. */
export const SCRIPTED_FILE_MAX_BYTES = 10 * 1024 * 1024;
