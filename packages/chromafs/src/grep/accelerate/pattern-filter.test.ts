import { describe, expect, it } from "vitest";
import { patternsToFilter, patternToFilter } from "./pattern-filter.js";

describe("patternToFilter", () => {
  it("turns plain text into a contains filter", () => {
    expect(patternToFilter("API key", "basic", false)).toEqual({
      kind: "contains",
      text: "API key",
      caseInsensitive: false,
    });
    expect(patternToFilter("a+b", "basic", true)).toEqual({
      kind: "contains",
      text: "a+b",
      caseInsensitive: true,
    });
    expect(patternToFilter("foo\\.bar", "basic", false)).toEqual({
      kind: "contains",
      text: "foo.bar",
      caseInsensitive: false,
    });
    expect(patternToFilter("[x](y)", "fixed", false)).toEqual({
      kind: "contains",
      text: "[x](y)",
      caseInsensitive: false,
    });
    expect(patternToFilter("文档", "extended", false)).toEqual({
      kind: "contains",
      text: "文档",
      caseInsensitive: false,
    });
  });

  it("translates BRE, where + ? | ( ) are literal and \\| \\( \\+ are operators", () => {
    expect(patternToFilter("error\\|warning", "basic", false)).toEqual({
      kind: "regex",
      pattern: "error|warning",
      caseInsensitive: false,
      literals: ["error", "warning"],
    });
    expect(patternToFilter("\\(ab\\)\\+c", "basic", false)?.kind).toBe("regex");
    expect(patternToFilter("\\(ab\\)\\+c", "basic", false)).toMatchObject({ pattern: "(?:ab)+c" });
    expect(patternToFilter("(a|b)", "basic", false)).toEqual({
      kind: "contains",
      text: "(a|b)",
      caseInsensitive: false,
    });
    expect(patternToFilter("*star", "basic", false)).toEqual({
      kind: "contains",
      text: "*star",
      caseInsensitive: false,
    });
    expect(patternToFilter("x\\{2,3\\}", "basic", false)).toMatchObject({ pattern: "x{2,3}" });
  });

  it("translates ERE and drops zero-width assertions (a wider match is allowed)", () => {
    expect(patternToFilter("^#{2,3} ", "extended", false)).toMatchObject({ pattern: "\\x23{2,3} " });
    expect(patternToFilter("(OpenAPI|AsyncAPI) spec$", "extended", true)).toEqual({
      kind: "regex",
      pattern: "(?:OpenAPI|AsyncAPI) spec",
      caseInsensitive: true,
      literals: [" spec"],
    });
    expect(patternToFilter("\\bdocs\\b", "basic", false)).toMatchObject({ kind: "regex", pattern: "docs" });
    expect(patternToFilter("colou?r", "extended", false)).toMatchObject({ pattern: "colou?r" });
  });

  it("maps dot, classes and \\w to syntax Rust and ECMAScript share", () => {
    expect(patternToFilter("a.c", "basic", false)).toMatchObject({ pattern: "a[^\\n]c" });
    expect(patternToFilter("[[:digit:]x-z]", "extended", false)).toMatchObject({ pattern: "[0-9x-z]" });
    expect(patternToFilter("[^]a]", "basic", false)).toMatchObject({ pattern: "[^\\x5da]" });
    expect(patternToFilter("\\w+", "extended", false)).toMatchObject({ pattern: "[\\p{L}\\p{N}_]+" });
  });

  it("names the literals every match holds, so the grep index can narrow a regex", () => {
    expect(patternToFilter("Kube\\(rnetes\\)\\?", "basic", true)).toEqual({
      kind: "regex",
      pattern: "Kube(?:rnetes)?",
      caseInsensitive: true,
      literals: ["Kube"],
    });
    expect(patternToFilter("webhook|SAML", "extended", false)).toMatchObject({
      literals: ["webhook", "SAML"],
    });
    expect(patternToFilter("[0-9]+ms", "extended", false)).toMatchObject({ literals: ["ms"] });
    expect(patternToFilter("[0-9]+", "extended", false)).toEqual({
      kind: "regex",
      pattern: "[0-9]+",
      caseInsensitive: false,
    });
    // Several patterns: one literal (at least) from each.
    expect(patternsToFilter(["webhook", "SA.L"], "basic", false)).toEqual({
      kind: "regex",
      pattern: "webhook|(?:SA[^\\n]L)",
      caseInsensitive: false,
      literals: ["webhook", "SA"],
    });
    expect(patternsToFilter(["webhook", "[0-9]"], "basic", false)).not.toHaveProperty("literals");
  });

  it("refuses what it cannot translate exactly or wider", () => {
    expect(patternToFilter("\\(a\\)\\1", "basic", false)).toBeNull();
    expect(patternToFilter("[[=a=]]", "basic", false)).toBeNull();
    expect(patternToFilter("a**", "extended", false)).toBeNull();
    expect(patternToFilter("", "basic", false)).toBeNull();
    expect(patternToFilter("a\nb", "fixed", false)).toBeNull();
    expect(patternToFilter("(unclosed", "extended", false)).toBeNull();
    expect(patternToFilter("[[:graph:]]", "extended", false)).toBeNull();
  });

  it("every translated regex compiles in ECMAScript with the u flag", () => {
    for (const [pattern, mode] of [
      ["[-a&~]", "basic"],
      ["\\<word\\>", "basic"],
      ["x{0,}y", "extended"],
      ["[[:punct:][:space:]]", "extended"],
      ["a\\/b", "basic"],
    ] as const) {
      const filter = patternToFilter(pattern, mode, true);
      expect(filter).not.toBeNull();
      if (filter?.kind === "regex") expect(() => new RegExp(filter.pattern, "iu")).not.toThrow();
    }
  });
});
