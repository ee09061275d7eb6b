import { describe, expect, it } from "vitest";
import { bm25Idf, bm25Scores, bm25TermScore, countOccurrences, rankBm25, tokenDocument } from "./bm25.js";

const DOCS = ["the cat sat on the mat", "the dog sat", "cats and dogs and cats", "a mat"];

describe("BM25", () => {
  it("IDF is Lucene's, positive even for a term in every document", () => {
    expect(bm25Idf(4, 1)).toBe(Math.log(1 + 3.5 / 1.5));
    expect(bm25Idf(4, 4)).toBe(Math.log(1 + 0.5 / 4.5));
    expect(bm25Idf(4, 4)).toBeGreaterThan(0);
  });

  it("a term's score saturates with its count and falls with the document's length", () => {
    // idf · f · (k1 + 1) / (f + k1 · (1 − b + b · length ratio)), k1 = 1.2, b = 0.75
    expect(bm25TermScore(1, 1, 1)).toBe(2.2 / 2.2);
    expect(bm25TermScore(2, 1, 1)).toBe(4.4 / 3.2);
    expect(bm25TermScore(1, 1, 2)).toBe(2.2 / (1 + 1.2 * 1.75));
    expect(bm25TermScore(0, 1, 1)).toBe(0);
    expect(bm25TermScore(1, 1, 1, { k1: 2, b: 0 })).toBe(1);
  });

  it("scores every document of a small set, IDF and average length from the set", () => {
    // 4 documents of 6, 3, 5 and 2 words (average 4); "cat" is in one, "mat" in two.
    const cat = bm25Idf(4, 1);
    const mat = bm25Idf(4, 2);
    const scores = bm25Scores(["cat", "mat", "cat"], DOCS.map(tokenDocument));
    expect(scores[0]).toBeCloseTo(bm25TermScore(1, cat, 6 / 4) + bm25TermScore(1, mat, 6 / 4), 12);
    expect(scores[1]).toBe(0);
    expect(scores[2]).toBe(0); // "cats" is not "cat": whole words only
    expect(scores[3]).toBeCloseTo(bm25TermScore(1, mat, 2 / 4), 12);
    expect(scores[0]).toBeCloseTo(1.5749675346222411, 12);
    expect(scores[3]).toBeCloseTo(0.8713850269896455, 12);
  });

  it("ranks texts holding a query term, best first, ties in input order", () => {
    expect(rankBm25(["cat", "mat"], DOCS).map((hit) => hit.index)).toEqual([0, 3]);
    expect(rankBm25(["sat"], DOCS).map((hit) => hit.index)).toEqual([1, 0]);
    expect(rankBm25(["same"], ["same", "same"]).map((hit) => hit.index)).toEqual([0, 1]);
    expect(rankBm25(["zebra"], DOCS)).toEqual([]);
    expect(rankBm25(["cat"], [])).toEqual([]);
  });

  it("counts non-overlapping substrings for text that is not tokenised", () => {
    expect(countOccurrences("aaaa", "aa")).toBe(2);
    expect(countOccurrences("配置域名配置", "配置")).toBe(2);
    expect(countOccurrences("abc", "")).toBe(0);
  });
});
