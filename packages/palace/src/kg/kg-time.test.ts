import { ValidationError } from "@atrium/spec";
import { expect, it } from "vitest";
import { parseFactTime, shortFactTime } from "./kg-time.js";

it("reads years and months as their first instant in UTC, and full ISO times as spec does", () => {
  expect(parseFactTime("2023", "validFrom")).toBe(Date.UTC(2023, 0, 1));
  expect(parseFactTime("2023-05", "validFrom")).toBe(Date.UTC(2023, 4, 1));
  expect(parseFactTime("2023-05-14", "validFrom")).toBe(Date.UTC(2023, 4, 14));
  expect(parseFactTime("2023-05-14T09:30:00+02:00", "validFrom")).toBe(Date.UTC(2023, 4, 14, 7, 30));
});

it("refuses anything else, naming the field", () => {
  for (const bad of ["2023-13", "May 2023", "20230514", ""]) {
    expect(() => parseFactTime(bad, "fact.validFrom")).toThrow(
      new ValidationError("knowledge graph", [
        {
          path: ["fact", "validFrom"],
          message: `${JSON.stringify(bad)} is not an ISO 8601 time; write e.g. 2023, 2023-05, 2023-05-01 or 2023-05-01T09:30:00Z`,
        },
      ]),
    );
  }
});

it("refuses dates and times that do not exist, saying what is impossible (issue 25)", () => {
  for (const [bad, why] of [
    ["2024-02-30", "is not a real date: February 2024 has 29 days, not 30"],
    ["2024-13-01", "is not a real date: month 13 does not exist (months run 01 to 12)"],
    ["2023-05-14T25:00Z", "is not a real time: hour 25 does not exist (0 to 23)"],
  ]) {
    expect(() => parseFactTime(bad as string, "fact.validFrom")).toThrow(
      new ValidationError("knowledge graph", [
        {
          path: ["fact", "validFrom"],
          message: `${JSON.stringify(bad)} ${why}; write e.g. 2023, 2023-05, 2023-05-01 or 2023-05-01T09:30:00Z`,
        },
      ]),
    );
  }
});

it("shows the date part as written", () => {
  expect(["2023", "2023-05", "2023-05-14T09:30:00Z"].map(shortFactTime)).toEqual([
    "2023",
    "2023-05",
    "2023-05-14",
  ]);
});
