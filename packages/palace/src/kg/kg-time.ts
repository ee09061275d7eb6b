import { isoTimeProblem, parseIsoTime, ValidationError } from "@atrium/spec";

/**
 * Facts are often known only to the month or year ("moved to Boston in 2023-05"), so besides the
 * full ISO 8601 forms spec's `parseIsoTime` takes, `YYYY` and `YYYY-MM` are accepted and read as
 * the first instant of that year or month, in UTC like a bare date.
 */
const REDUCED_PRECISION = /^(\d{4})(?:-(\d{2}))?$/;

/** Epoch milliseconds of a fact time, or a `ValidationError` naming `field`. */
export function parseFactTime(value: string, field: string): number {
  const reduced = REDUCED_PRECISION.exec(value);
  if (reduced) {
    const month = reduced[2] === undefined ? 1 : Number(reduced[2]);
    if (month >= 1 && month <= 12) return Date.UTC(Number(reduced[1]), month - 1, 1);
  }
  try {
    return parseIsoTime(value, field);
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    throw new ValidationError(
      "knowledge graph",
      [
        {
          path: field.split("."),
          // The calendar's word when the form is right but the date is not ("2024-02-30").
          message: `${isoTimeProblem(value) ?? `${JSON.stringify(value)} is not an ISO 8601 time`}; write e.g. 2023, 2023-05, 2023-05-01 or 2023-05-01T09:30:00Z`,
        },
      ],
      { cause: error },
    );
  }
}

/** How a fact time is shown in a fact line: the date part as written ("2023-05", "2023-05-14"). */
export function shortFactTime(value: string): string {
  return value.slice(0, 10);
}

/** A fact time as stored: the text as written and its epoch milliseconds. */
export interface FactTime {
  text: string;
  ms: number;
}

/** `text` with its epoch milliseconds, or a `ValidationError` naming `field`. */
export function factTime(text: string, field: string): FactTime {
  return { text, ms: parseFactTime(text, field) };
}
