import { ConfigError } from "@atrium/spec";

/**
 * The tape of a QuickJS step: what a replay in another process needs so that the step's
 * non-deterministic sources give what they gave the first time (kit's `ExecutorRun.tape`).
 * `random`: every value `Math.random()` gave, in order; `now`: every value of the clock, in
 * order, whether `Date.now()`, `new Date()` (no arguments) or `Date()` read it. A replay gives
 * these first, then live values. QuickJS has no `performance.now` to tape; `crypto` is absent
 * too. Both sides of the thread boundary import this module (the prelude taps the sources).
 */
export interface JsTape {
  random: number[];
  now: number[];
  /** False when the step used more than `MAX_TAPE_VALUES` values: a replay of it is refused. */
  complete: boolean;
}

/**
 * Values one step may record. Past it the step goes on with live values, unrecorded, and its
 * tape says `complete: false`, so a replay refuses clearly rather than diverging silently; the
 * bound also keeps a step that calls `Math.random()` a million times from a reply of that size.
 */
export const MAX_TAPE_VALUES = 100_000;

/** The largest magnitude of a time value (ECMAScript's Date range), in ms. */
const MAX_TIME_MS = 8.64e15;

/**
 * What is wrong with `value` as a tape (or undefined): its shape, its size (checked before its
 * items are read), and each value's range.
 */
export function tapeProblem(value: unknown): string | undefined {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return "is not an object";
  const { random, now, complete } = value as Record<string, unknown>;
  if (!Array.isArray(random) || !Array.isArray(now)) return "has no random and now lists";
  if (typeof complete !== "boolean") return "does not say whether it is complete";
  if (random.length + now.length > MAX_TAPE_VALUES) return `holds more than ${MAX_TAPE_VALUES} values`;
  if (!random.every((n) => typeof n === "number" && n >= 0 && n < 1))
    return "has a random value outside [0, 1)";
  if (!now.every((n) => Number.isInteger(n) && Math.abs(n) <= MAX_TIME_MS))
    return "has a clock value that is not a time in ms";
  return undefined;
}

/**
 * The replay tape a step is to give first, checked: it comes from a saved file. A bad one, or
 * one recorded incomplete, is refused (`ConfigError`) before the step starts.
 */
export function checkReplayTape(value: unknown): JsTape {
  const problem = tapeProblem(value);
  const tape = value as JsTape;
  if (!problem && tape.complete) return tape;
  throw new ConfigError(
    `QuickJsExecutor: the replay tape ${
      problem ??
      `is incomplete: the recorded step used more than ${MAX_TAPE_VALUES} values, so a replay of it could diverge`
    }`,
  );
}
