import { describe, expect, it } from "vitest";
import { compileTextFilter } from "./text-filter-matcher.js";

describe("compileTextFilter", () => {
  it("matches case-insensitive strings holding any punctuation literally", () => {
    const text = "Set up Single Sign-On (SSO) at https://x.io/a?b=[1]{2} | $5 ^ *.";
    for (const needle of ["sign-on", "(sso)", "https://x.io/a?b=[1]{2}", "| $5 ^ *."]) {
      expect(compileTextFilter({ kind: "contains", text: needle, caseInsensitive: true })(text)).toBe(true);
    }
    expect(compileTextFilter({ kind: "contains", text: "sign-off", caseInsensitive: true })(text)).toBe(
      false,
    );
  });

  it("folds case as Unicode does as well as by lower-casing", () => {
    const kelvin = compileTextFilter({ kind: "contains", text: "k", caseInsensitive: true });
    expect(kelvin("\u212A")).toBe(true);
    expect(compileTextFilter({ kind: "contains", text: "K", caseInsensitive: false })("k")).toBe(false);
  });
});
