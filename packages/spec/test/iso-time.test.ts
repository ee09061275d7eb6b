import { describe, expect, it } from "vitest";
import { ValidationError } from "../src/errors.js";
import { isoTimeProblem, parseIsoTime } from "../src/memory-store.js";

/** Issue 25: impossible dates were accepted (`Date.parse` reads 2024-02-30 as March 1). */

function refusal(value: string): string {
  try {
    parseIsoTime(value, "timeRange.from");
  } catch (error) {
    if (error instanceof ValidationError) return error.message;
    throw error;
  }
  return "accepted";
}

describe("parseIsoTime refuses dates and times that do not exist", () => {
  it("names what is impossible, exactly", () => {
    expect(refusal("2024-02-30")).toBe(
      'memory: timeRange.from: "2024-02-30" is not a real date: February 2024 has 29 days, not 30; write e.g. 2024-05-01 or 2024-05-01T09:30:00Z',
    );
    expect(isoTimeProblem("2024-13-01")).toBe(
      '"2024-13-01" is not a real date: month 13 does not exist (months run 01 to 12)',
    );
    expect(isoTimeProblem("2023-02-29")).toBe(
      '"2023-02-29" is not a real date: February 2023 has 28 days, not 29',
    );
    expect(isoTimeProblem("2024-04-31")).toBe(
      '"2024-04-31" is not a real date: April 2024 has 30 days, not 31',
    );
    expect(isoTimeProblem("2024-01-00")).toBe(
      '"2024-01-00" is not a real date: January 2024 has 31 days, not 00',
    );
    expect(isoTimeProblem("2024-05-01T24:00Z")).toBe(
      '"2024-05-01T24:00Z" is not a real time: hour 24 does not exist (0 to 23)',
    );
    expect(isoTimeProblem("2024-05-01T09:60:00Z")).toBe(
      '"2024-05-01T09:60:00Z" is not a real time: minute 60 does not exist (0 to 59)',
    );
    expect(isoTimeProblem("2024-05-01T09:30:00+25:00")).toBe(
      '"2024-05-01T09:30:00+25:00" is not a real time: offset hour 25 does not exist (0 to 23)',
    );
    expect(isoTimeProblem("May 1 2024")).toBe('"May 1 2024" is not an ISO 8601 time');
  });

  it("accepts real ones, leap days included", () => {
    expect(parseIsoTime("2024-02-29", "t")).toBe(Date.UTC(2024, 1, 29));
    expect(parseIsoTime("2000-02-29T23:59:59.999Z", "t")).toBe(Date.UTC(2000, 1, 29, 23, 59, 59, 999));
    expect(parseIsoTime("2024-12-31T00:00+05:30", "t")).toBe(Date.UTC(2024, 11, 30, 18, 30));
  });
});
