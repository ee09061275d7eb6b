import { describe, expect, it } from "vitest";
import { foldCase, wordRuns } from "./word-runs.js";

describe("wordRuns", () => {
  it("cuts at everything but letters, marks, digits and _", () => {
    expect(wordRuns("Deploy to k8s: `helm_install --set=x.y` (v2)")).toEqual([
      "deploy",
      "to",
      "k8s",
      "helm_install",
      "set",
      "x",
      "y",
      "v2",
    ]);
    expect(wordRuns("配置 API 密钥、Café naïve")).toEqual(["配置", "api", "密钥", "café", "naïve"]);
    expect(wordRuns("--- !!")).toEqual([]);
  });
});

describe("foldCase", () => {
  it("maps each case class to one code point, context-free", () => {
    expect(foldCase("ΟΔΟΣ")).toBe("οδοσ");
    expect(foldCase("ὁδός")).toBe("ὁδόσ");
    expect(["s", "S", "ſ"].map(foldCase)).toEqual(["s", "s", "s"]);
    expect(["k", "K", "\u212a"].map(foldCase)).toEqual(["k", "k", "k"]);
    expect(["ß", "ẞ"].map(foldCase)).toEqual(["ß", "ß"]);
    expect(foldCase("İSTANBUL")).toBe("İstanbul");
    expect(foldCase("\u1fd3\ufb05")).toBe("\u0390\ufb06");
    expect(foldCase("ǅ")).toBe("ǆ");
  });

  /**
   * The candidates grep gets from the index must include every chunk ECMAScript's `/…/iv`
   * (ChromaFs's own grep) or Rust's `(?i)` (the server) would match: no two code points the
   * engine treats as the same letter may fold apart. For every cased code point, the smallest
   * member of its class under `/iv` is found by bisection (`[\0-x]` matches c case-insensitively
   * exactly when a member of c's class is ≤ x), and must fold like c.
   */
  it("never separates what a case-insensitive regex joins", () => {
    const smallestMember = (char: string) => {
      let low = 0;
      let high = char.codePointAt(0) as number;
      while (low < high) {
        const middle = (low + high) >>> 1;
        const range = new RegExp(`^[\\u{0}-\\u{${middle.toString(16)}}]$`, "iv");
        if (range.test(char)) high = middle;
        else low = middle + 1;
      }
      return String.fromCodePoint(low);
    };
    const split: string[] = [];
    let cased = 0;
    for (let point = 0; point <= 0x1ffff; point++) {
      if (point >= 0xd800 && point <= 0xdfff) continue;
      const char = String.fromCodePoint(point);
      if (char.toLowerCase() === char && char.toUpperCase() === char) continue;
      cased++;
      const smallest = smallestMember(char);
      if (foldCase(smallest) !== foldCase(char)) split.push(`U+${point.toString(16)}`);
    }
    expect(cased).toBeGreaterThan(2500);
    expect(split).toEqual([]);
  });
});
