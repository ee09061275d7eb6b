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
