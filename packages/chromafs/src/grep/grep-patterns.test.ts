import { describe, expect, it } from "vitest";
import { gnuToEre, rewritePatterns } from "./grep-patterns.js";

const ere = (pattern: string, mode: "basic" | "extended" = "basic") => gnuToEre(pattern, mode)?.ere ?? null;

describe("gnuToEre", () => {
  it("reads GNU BRE operators as operators and ERE operators as literals", () => {
    expect(ere("[0-9]\\+ ms")).toBe("[0-9]+ ms");
    expect(ere("Ku\\?bernetes")).toBe("Ku?bernetes");
    expect(ere("\\(Helm\\|Kube\\) x\\{2,\\}")).toBe("(Helm|Kube) x{2,}");
    expect(ere("a+b?(c)|{d}")).toBe("a\\+b\\?\\(c\\)\\|\\{d\\}");
    expect(ere("x\\{,3\\}")).toBe("x{0,3}");
  });

  it("keeps `*` literal where BRE does, and anchors only where they anchor", () => {
    expect(ere("*star")).toBe("\\*star");
    expect(ere("^*x")).toBe("^\\*x");
    expect(ere("\\(*a\\)\\|*b")).toBe("(\\*a)|\\*b");
    expect(ere("a^b$c$")).toBe("a\\^b\\$c$");
    expect(ere("^a\\|b$")).toBe("^a|b$");
  });

  it("groups a repeated quantifier, which RE2 would reject or read as lazy", () => {
    expect(ere("a**")).toBe("(?:a*)*");
    expect(ere("a*?", "extended")).toBe("(?:a*)?");
  });

  it("spells bracket expressions for RE2, backslash literal as in POSIX", () => {
    expect(ere("[]a-c\\]")).toBe("[\\]a-c\\\\]");
    expect(ere("[^]!-]")).toBe("[^\\]\\!\\-]");
    expect(ere("[[:digit:]x]")).toBe("[0-9x]");
  });

  it("reports plain text, so alternatives can go longest first", () => {
    expect(gnuToEre("a\\.b", "basic")).toEqual({ ere: "a\\.b", plain: "a.b" });
    expect(gnuToEre("a.b", "basic")).toEqual({ ere: "a.b", plain: null });
  });

  it("refuses what it does not translate exactly", () => {
    for (const [pattern, mode] of [
      ["\\(a\\)\\1", "basic"],
      ["\\<word\\>", "basic"],
      ["\\t", "basic"],
      ["*a", "extended"],
      ["a{1", "extended"],
      ["[[=a=]]", "basic"],
      ["[z-a]", "basic"],
      ["[:space:]", "basic"],
      ["x\\{2000\\}", "basic"],
      ["(a", "extended"],
      ["a\\", "basic"],
    ] as const) {
      expect(gnuToEre(pattern, mode)).toBeNull();
    }
  });
});

describe("rewritePatterns", () => {
  it("joins several patterns into one ERE, plain text longest first", () => {
    expect(rewritePatterns(["Helm", "Kubernetes"], "basic")).toEqual({
      pattern: "Kubernetes|Helm",
      extended: true,
    });
    expect(rewritePatterns(["a\\+", "b"], "basic")).toEqual({ pattern: "a+|b", extended: true });
    expect(rewritePatterns(["x\ny(z)?"], "extended")).toEqual({ pattern: "x|y(z)?", extended: true });
  });

  it("keeps fixed strings fixed, one per line", () => {
    expect(rewritePatterns(["Kube", "Kubernetes"], "fixed")).toEqual({
      pattern: "Kubernetes\nKube",
      extended: false,
    });
    expect(rewritePatterns(["a+b"], "fixed")).toBeNull();
  });

  it("leaves one pattern just-bash reads right alone", () => {
    expect(rewritePatterns(["Kubernetes"], "basic")).toBeNull();
    expect(rewritePatterns(["(OpenAPI|AsyncAPI) spec"], "extended")).toBeNull();
    expect(rewritePatterns(["\\(a\\)\\1"], "basic")).toBeNull();
  });

  it("falls back to one pattern per line when one is not translated", () => {
    expect(rewritePatterns(["\\(a\\)\\1", "b\\+"], "basic")).toEqual({
      pattern: "\\(a\\)\\1\nb\\+",
      extended: false,
    });
  });
});
