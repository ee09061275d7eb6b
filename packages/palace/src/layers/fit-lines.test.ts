import { countTokens } from "gpt-tokenizer";
import { describe, expect, it } from "vitest";
import { cutToTokens, fitLines } from "./fit-lines.js";

describe("fitLines", () => {
  const lines = [
    { text: "I am Caroline, a counsellor in Lisbon." },
    {
      text: "- Caroline: I went to the LGBTQ support group yesterday and it was so powerful to hear the stories.",
      maxTokens: 12,
    },
    { text: "- short" },
  ];

  it("keeps whole lines while they fit, cuts a line to its maxTokens with …", () => {
    expect(countTokens("- Caroline: I went to the LGBTQ support group yesterday…")).toBe(12);
    expect(fitLines(lines, 100)).toBe(
      "I am Caroline, a counsellor in Lisbon.\n- Caroline: I went to the LGBTQ support group yesterday…\n- short",
    );
  });

  it("never counts more than the budget, for every budget from 0 to 60", () => {
    for (let budget = 0; budget <= 60; budget++) {
      const text = fitLines(lines, budget);
      expect(countTokens(text), `budget ${budget}`).toBeLessThanOrEqual(budget);
      // Whole lines, or lines cut and marked, in the given order.
      for (const line of text === "" ? [] : text.split("\n")) {
        const source = lines.find(
          (candidate) => candidate.text === line || candidate.text.startsWith(line.slice(0, -1)),
        );
        expect(source, `budget ${budget}: ${line}`).toBeDefined();
        if (source?.text !== line) expect(line.endsWith("…")).toBe(true);
      }
    }
    expect(fitLines(lines, 0)).toBe("");
    expect(fitLines(lines, 5)).toBe("I am Caroline,…");
  });

  it("skips a line that does not fit and takes a later, shorter one", () => {
    expect(
      fitLines([{ text: "one two" }, { text: "x ".repeat(50), maxTokens: 1 }, { text: "three" }], 10),
    ).toBe("one two\nthree");
  });

  it("cuts at a word when one is near, never inside a multi-byte character", () => {
    expect(cutToTokens("The quick brown fox jumps over the lazy dog", 5)).toBe("The quick brown fox…");
    const cut = cutToTokens("日本語のテキストはトークンが多い", 4);
    expect(cut).not.toContain("\uFFFD");
    expect(countTokens(cut)).toBeLessThanOrEqual(4);
  });
});
