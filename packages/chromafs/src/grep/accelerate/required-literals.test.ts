import { describe, expect, it } from "vitest";
import { tokenizeGnuRegex } from "../gnu/gnu-regex.js";
import { requiredLiterals } from "./required-literals.js";

const literalsOf = (pattern: string, extended = true) =>
  requiredLiterals(tokenizeGnuRegex(pattern, extended) ?? []);

describe("requiredLiterals", () => {
  it("takes the longest run of plain characters each alternative cannot match without", () => {
    expect(literalsOf("Kube(rnetes)?")).toEqual(["Kube"]);
    expect(literalsOf("colou?r")).toEqual(["colo"]);
    expect(literalsOf("ab+c")).toEqual(["ab"]);
    expect(literalsOf("xab+cde")).toEqual(["bcde"]);
    expect(literalsOf("x*yz")).toEqual(["yz"]);
    expect(literalsOf("a{2,3}bc")).toEqual(["abc"]);
    expect(literalsOf("a{0,3}bc")).toEqual(["bc"]);
    expect(literalsOf("\\bdocs\\b")).toEqual(["docs"]);
    expect(literalsOf("^## (Setup|Install)ation$")).toEqual(["ation"]);
    expect(literalsOf("api.key")).toEqual(["api"]);
    expect(literalsOf("webhook|SAML|OpenAPI")).toEqual(["webhook", "SAML", "OpenAPI"]);
    expect(literalsOf("error\\|warn", false)).toEqual(["error", "warn"]);
    // In BRE, `(`, `|` and `?` are plain characters.
    expect(literalsOf("f(x)|y?", false)).toEqual(["f(x)|y?"]);
  });

  it("is null when some alternative holds no plain character for sure", () => {
    expect(literalsOf("[0-9]+")).toBeNull();
    expect(literalsOf("(ab|cd)")).toBeNull();
    expect(literalsOf("webhook|[A-Z]+")).toBeNull();
    expect(literalsOf("a?")).toBeNull();
    expect(literalsOf("x|")).toBeNull();
    expect(literalsOf("")).toBeNull();
  });
});
