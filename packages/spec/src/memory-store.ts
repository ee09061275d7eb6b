import type { Closeable } from "./closeable.js";
import { ValidationError } from "./errors.js";

/**
 * Contract version of `MemoryStore`; bump on a breaking change.
 * 2: `forget(id)`, `recall(..., { timeRange })`, `wakeUp({ budgetTokens })`, hits always carry a
 * timestamp, and the `Closeable` rule for `close`.
 */
export const MEMORY_STORE_CONTRACT_VERSION = 2;

/** Where a memory is filed. In the palace: wing (a person or project) and room (a topic). */
export interface MemoryScope {
  wing?: string;
  room?: string;
}

export interface MemoryItem {
  /** Stored verbatim: recall returns exactly this text. */
  content: string;
  scope?: MemoryScope;
  /** Where it came from (a file, a conversation id, "agent"). */
  source?: string;
  /** ISO 8601 time the memory is about; defaults to when it was stored. */
  timestamp?: string;
  metadata?: Record<string, string | number | boolean>;
}

export interface RememberResult {
  /** Content-derived: remembering the same content in the same scope returns the same id. */
  id: string;
  /** False when the memory was already there (nothing was duplicated). */
  created: boolean;
}

/** ISO 8601 bounds, both inclusive; a missing bound is open. */
export interface TimeRange {
  from?: string;
  to?: string;
}

export interface RecallOptions {
  /** Only memories inside this scope (a wing, or a room of a wing). */
  scope?: MemoryScope;
  /** At most this many hits (default chosen by the store, at least 1). */
  limit?: number;
  /** Only memories whose timestamp lies within these bounds. */
  timeRange?: TimeRange;
}

export interface RecallHit {
  id: string;
  content: string;
  scope: MemoryScope;
  /** Higher is better; comparable within one result list only. */
  score: number;
  /** The memory's ISO 8601 time: its item's `timestamp`, else when it was stored. */
  timestamp: string;
  source?: string;
  metadata?: Record<string, string | number | boolean>;
}

export interface WakeUpOptions {
  /** The context must fit this many tokens, as `countTokens` counts them. */
  budgetTokens: number;
}

/**
 * What an agent needs from long-term memory. `wakeUp` returns a compact context (who the user
 * is, what matters) that fits its token budget as counted by the store's tokenizer. `forget`
 * removes one memory by id and says whether there was one. `close` follows `Closeable`: after
 * it, `remember`, `recall`, `forget` and `wakeUp` reject with `ClosedError` (`countTokens`,
 * a pure function, keeps working). Bad input (empty content, a malformed time) rejects with a
 * `ValidationError` naming the field.
 */
export interface MemoryStore extends Closeable {
  remember(item: MemoryItem): Promise<RememberResult>;
  recall(query: string, options?: RecallOptions): Promise<RecallHit[]>;
  forget(id: string): Promise<boolean>;
  wakeUp(options: WakeUpOptions): Promise<string>;
  /** Counts tokens the way `wakeUp` budgets them. */
  countTokens(text: string): number;
}

export function inScope(scope: MemoryScope | undefined, filter: MemoryScope | undefined): boolean {
  if (!filter) return true;
  if (filter.wing !== undefined && scope?.wing !== filter.wing) return false;
  if (filter.room !== undefined && scope?.room !== filter.room) return false;
  return true;
}

/**
 * Milliseconds since the epoch of an ISO 8601 time, or a `ValidationError` naming `field` (e.g.
 * "timeRange.from"). Only ISO forms are accepted, not whatever `Date.parse` guesses at.
 */
export function parseIsoTime(value: string, field: string): number {
  const ms = ISO_8601.test(value) ? Date.parse(value) : Number.NaN;
  if (Number.isNaN(ms)) {
    throw new ValidationError("memory", [
      {
        path: field.split("."),
        message: `${JSON.stringify(value)} is not an ISO 8601 time; write e.g. 2024-05-01 or 2024-05-01T09:30:00Z`,
      },
    ]);
  }
  return ms;
}

const ISO_8601 = /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/;

/** Checks a time range: each bound an ISO 8601 time, `from` not after `to`. Returns it in ms. */
export function checkTimeRange(range: TimeRange | undefined): { from: number; to: number } {
  const from = range?.from === undefined ? -Infinity : parseIsoTime(range.from, "timeRange.from");
  const to = range?.to === undefined ? Infinity : parseIsoTime(range.to, "timeRange.to");
  if (from > to) {
    throw new ValidationError("memory", [
      { path: ["timeRange"], message: `from (${range?.from}) is after to (${range?.to}); swap them` },
    ]);
  }
  return { from, to };
}

/** Whether an ISO 8601 time lies within a range, bounds inclusive (a missing range holds all). */
export function inTimeRange(timestamp: string, range: TimeRange | undefined): boolean {
  if (!range) return true;
  const { from, to } = checkTimeRange(range);
  const at = parseIsoTime(timestamp, "timestamp");
  return at >= from && at <= to;
}
