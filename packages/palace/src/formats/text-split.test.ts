import { describe, expect, it } from "vitest";
import { splitRanges, splitText } from "./text-split.js";

describe("splitText", () => {
  it("keeps text that fits whole, without surrounding blank lines", () => {
    expect(splitText("\n\nhello world\n\n", 20)).toEqual(["hello world"]);
    expect(splitText("   \n", 20)).toEqual([]);
  });

  it("cuts at paragraph breaks first, packing paragraphs that fit together", () => {
    const text = "First para.\n\nSecond para.\n\nThird paragraph is longer.";
    expect(splitText(text, 30)).toEqual(["First para.\n\nSecond para.", "Third paragraph is longer."]);
  });

  it("falls back to lines, then sentences, then words", () => {
    expect(splitText("line one\nline two\nline three", 18)).toEqual(["line one\nline two", "line three"]);
    expect(splitText("One sentence here. Another one there! A third?", 20)).toEqual([
      "One sentence here.",
      "Another one there!",
      "A third?",
    ]);
    expect(splitText("alpha beta gamma delta epsilon", 12)).toEqual(["alpha beta", "gamma delta", "epsilon"]);
  });

  it("cuts inside a word only when the word alone is longer than the cap", () => {
    expect(splitText("see abcdefghijkl now", 5)).toEqual(["see", "abcde", "fghij", "kl", "now"]);
  });

  it("never splits a surrogate pair", () => {
    const pieces = splitText("😀😀😀", 3);
    expect(pieces).toEqual(["😀", "😀", "😀"]);
  });

  it("keeps a piece's first-line indentation (code)", () => {
    const code = "function a() {\n  return 1;\n}\n\n  indented();\n  more();";
    expect(splitText(code, 30)).toEqual(["function a() {\n  return 1;\n}", "  indented();\n  more();"]);
  });

  it("returns verbatim slices, in order, each within the cap", () => {
    const text = Array.from(
      { length: 200 },
      (_, i) => `Sentence number ${i} is here.${i % 7 === 0 ? "\n\n" : " "}`,
    ).join("");
    const ranges = splitRanges(text, 0, text.length, 150);
    let previousEnd = 0;
    for (const [start, end] of ranges) {
      expect(start).toBeGreaterThanOrEqual(previousEnd);
      expect(end - start).toBeLessThanOrEqual(150);
      expect(text.slice(previousEnd, start).trim()).toBe("");
      previousEnd = end;
    }
    expect(text.slice(previousEnd).trim()).toBe("");
  });

  it("refuses a cap below one character", () => {
    expect(() => splitText("x", 0)).toThrow("maxChars must be at least 1, got 0");
  });
});
