/**
 * Every default limit of @atrium/agent, in one place. Each section belongs to one area; the
 * numbers are defaults that options override.
 */

// ── QuickJS executor ──────────────────────────────────────────────────────────────────────────

// ── Agent loop ────────────────────────────────────────────────────────────────────────────────

// ── Models ────────────────────────────────────────────────────────────────────────────────────
