/**
 * Export timestamps come as ISO strings (Claude, Claude Code, Codex), epoch seconds as numbers
 * (ChatGPT) or as strings with microseconds (Slack's `ts`). All become ISO 8601 in UTC.
 */

/** Epoch values above this are taken as milliseconds, below as seconds (year 2286 in seconds). */
const EPOCH_MILLISECONDS_FROM = 1e10;

export function toIsoTimestamp(value: unknown): string | undefined {
  if (typeof value === "number") return fromEpoch(value);
  if (typeof value !== "string" || value.trim() === "") return undefined;
  const text = value.trim();
  if (/^\d+(\.\d+)?$/.test(text)) return fromEpoch(Number(text));
  // A date and time without a zone (hand-written transcripts) is read as UTC, not as the zone of
  // whatever machine mines it, so two machines file the same time.
  const zoneless = /^\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}(:\d{2}(\.\d+)?)?$/.test(text);
  const parsed = Date.parse(zoneless ? `${text.replace(" ", "T")}Z` : text);
  return Number.isNaN(parsed) ? undefined : new Date(parsed).toISOString();
}

function fromEpoch(value: number): string | undefined {
  if (!Number.isFinite(value) || value < 0) return undefined;
  const ms = value >= EPOCH_MILLISECONDS_FROM ? value : value * 1000;
  const date = new Date(Math.round(ms));
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString();
}
