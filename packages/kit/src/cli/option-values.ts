import { UsageError } from "./usage-error.js";

/**
 * A whole number given as `flag` (`--port`), within `min` (default 0) and `max` (default none);
 * undefined when the option was not given. Anything else is a `UsageError` naming the range.
 */
export function integerOption(
  text: string | undefined,
  flag: string,
  range: { min?: number; max?: number } = {},
): number | undefined {
  if (text === undefined) return undefined;
  const { min = 0, max } = range;
  const value = Number(text);
  if (
    !/^\d+$/.test(text) ||
    !Number.isSafeInteger(value) ||
    value < min ||
    (max !== undefined && value > max)
  ) {
    throw new UsageError(`${flag} must be ${wholeNumber(min, max)}, got ${JSON.stringify(text)}`);
  }
  return value;
}

function wholeNumber(min: number, max: number | undefined): string {
  if (max !== undefined) return `a whole number from ${min} to ${max}`;
  return min === 1 ? "a positive whole number" : `a whole number, ${min} or more`;
}

/** One of `choices` given as `flag`, or undefined when not given; anything else is a `UsageError`. */
export function choiceOption<Choice extends string>(
  text: string | undefined,
  flag: string,
  choices: readonly Choice[],
): Choice | undefined {
  if (text === undefined) return undefined;
  if (!(choices as readonly string[]).includes(text)) {
    throw new UsageError(`${flag} must be one of ${choices.join(", ")}, got ${JSON.stringify(text)}`);
  }
  return text as Choice;
}

/** What `--json` prints: one JSON document, indented, with a final newline. */
export function jsonText(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}
