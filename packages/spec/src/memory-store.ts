import type { Closeable } from "./closeable.js";
import { ValidationError } from "./errors.js";

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
 * "timeRange.from"). Only ISO forms are accepted, not whatever `Date.parse` guesses at, and
 * only real dates and times: `Date.parse` reads "2024-02-30" as March 1.
 */
export function parseIsoTime(value: string, field: string): number {
  const problem = isoTimeProblem(value);
  if (problem !== undefined) {
    throw new ValidationError("memory", [
      { path: field.split("."), message: `${problem}; write e.g. 2024-05-01 or 2024-05-01T09:30:00Z` },
    ]);
  }
  return Date.parse(value);
}

const ISO_8601 =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?(?:Z|[+-](\d{2}):?(\d{2}))?)?$/;

const MONTHS = [
  "January",
  "February",
  "March",
  "April",
  "May",
  "June",
  "July",
  "August",
  "September",
  "October",
  "November",
  "December",
];

/**
 * Why `value` is not an ISO 8601 time ("\"2024-02-30\" is not a real date: February 2024 has
 * 29 days"), or undefined when it is one. Every field is checked against the calendar and the
 * clock, since `Date.parse` rolls an impossible day over into the next month.
 */
export function isoTimeProblem(value: string): string | undefined {
  const match = ISO_8601.exec(value);
  const shown = JSON.stringify(value);
  if (!match) return `${shown} is not an ISO 8601 time`;
  const [year, month, day, hour, minute, second, offsetHours, offsetMinutes] = match
    .slice(1)
    .map((part) => (part === undefined ? undefined : Number(part)));
  if ((month as number) < 1 || (month as number) > 12) {
    return `${shown} is not a real date: month ${match[2]} does not exist (months run 01 to 12)`;
  }
  const days = new Date(Date.UTC(year as number, month as number, 0)).getUTCDate();
  if ((day as number) < 1 || (day as number) > days) {
    return `${shown} is not a real date: ${MONTHS[(month as number) - 1]} ${match[1]} has ${days} days, not ${match[3]}`;
  }
  const clock: [number | undefined, number, string][] = [
    [hour, 23, "hour"],
    [minute, 59, "minute"],
    [second, 59, "second"],
    [offsetHours, 23, "offset hour"],
    [offsetMinutes, 59, "offset minute"],
  ];
  for (const [part, max, name] of clock) {
    if (part !== undefined && part > max) {
      return `${shown} is not a real time: ${name} ${String(part).padStart(2, "0")} does not exist (0 to ${max})`;
    }
  }
  return Number.isNaN(Date.parse(value)) ? `${shown} is not an ISO 8601 time` : undefined;
}

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
