import { ValidationError } from "@atrium/spec";

const MONTHS = [
  "january",
  "february",
  "march",
  "april",
  "may",
  "june",
  "july",
  "august",
  "september",
  "october",
  "november",
  "december",
];

/** LoCoMo writes session times as "1:56 pm on 8 May, 2023" (12-hour clock, no time zone). */
const LOCOMO_DATE = /^\s*(\d{1,2}):(\d{2})\s*([ap])\.?m\.?\s+on\s+(\d{1,2})\s+([a-z]+),?\s+(\d{4})\s*$/i;

/**
 * A LoCoMo session time as ISO 8601. The dataset names no time zone, so the wall-clock time is
 * read as UTC: what matters for the palace is the order of sessions and the calendar date.
 */
export function parseLocomoDate(text: string): string {
  const match = LOCOMO_DATE.exec(text);
  const month = match ? MONTHS.indexOf(match[5]!.toLowerCase()) : -1;
  const hour12 = match ? Number(match[1]) : 0;
  const minute = match ? Number(match[2]) : 0;
  const day = match ? Number(match[4]) : 0;
  if (!match || month < 0 || hour12 < 1 || hour12 > 12 || minute > 59 || day < 1 || day > 31) {
    throw new ValidationError("LoCoMo session date", [
      {
        path: [],
        message: `${JSON.stringify(text)} is not a time like "1:56 pm on 8 May, 2023"; fix the session's date_time field`,
      },
    ]);
  }
  const hour = (hour12 % 12) + (match[3]!.toLowerCase() === "p" ? 12 : 0);
  const date = new Date(Date.UTC(Number(match[6]), month, day, hour, minute));
  if (date.getUTCDate() !== day) {
    throw new ValidationError("LoCoMo session date", [
      { path: [], message: `${JSON.stringify(text)} names a day its month does not have` },
    ]);
  }
  return date.toISOString();
}
