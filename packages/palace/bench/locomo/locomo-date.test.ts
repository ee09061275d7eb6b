import { ValidationError } from "@atrium/spec";
import { describe, expect, it } from "vitest";
import { parseLocomoDate } from "./locomo-date.js";

describe("parseLocomoDate", () => {
  it("reads LoCoMo's 12-hour session times as UTC", () => {
    expect(parseLocomoDate("1:56 pm on 8 May, 2023")).toBe("2023-05-08T13:56:00.000Z");
    expect(parseLocomoDate("12:05 am on 1 June, 2023")).toBe("2023-06-01T00:05:00.000Z");
    expect(parseLocomoDate("12:30 pm on 17 December, 2022")).toBe("2022-12-17T12:30:00.000Z");
    expect(parseLocomoDate("9:02 AM on 3 january 2024")).toBe("2024-01-03T09:02:00.000Z");
  });

  it("names the text and the expected shape when it cannot read it", () => {
    expect(() => parseLocomoDate("May 8th")).toThrow(ValidationError);
    expect(() => parseLocomoDate("May 8th")).toThrow(
      'LoCoMo session date: "May 8th" is not a time like "1:56 pm on 8 May, 2023"; fix the session\'s date_time field',
    );
    expect(() => parseLocomoDate("13:00 pm on 8 May, 2023")).toThrow("is not a time like");
    expect(() => parseLocomoDate("1:00 pm on 8 Mayo, 2023")).toThrow("is not a time like");
    expect(() => parseLocomoDate("1:00 pm on 30 February, 2023")).toThrow(
      '"1:00 pm on 30 February, 2023" names a day its month does not have',
    );
  });
});
