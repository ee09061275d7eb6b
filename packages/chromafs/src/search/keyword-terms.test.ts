import { bm25TermScore } from "@atrium/kit";
import { describe, expect, it } from "vitest";
import { chunkBm25 } from "./chunk-bm25.js";
import { keywordTerms, termCounts } from "./keyword-terms.js";

describe("keywordTerms", () => {
  it("takes the query's words as written, or stemmed with the needle every form holds", () => {
    expect(keywordTerms("What policies apply to Images and image uploads?", "plain")).toEqual([
      { term: "policies", needle: "policies" },
      { term: "apply", needle: "apply" },
      { term: "images", needle: "images" },
      { term: "image", needle: "image" },
      { term: "uploads", needle: "uploads" },
    ]);
    expect(keywordTerms("What policies apply to Images and image uploads?", "stemmed")).toEqual([
      { term: "policy", needle: "polic" },
      { term: "apply", needle: "appl" },
      { term: "image", needle: "image" },
      { term: "upload", needle: "upload" },
    ]);
  });

  it("counts whole words, stemmed or not", () => {
    expect([...termCounts("Images: an image, imagery.", "stemmed")]).toEqual([
      ["image", 2],
      ["an", 1],
      ["imagery", 1],
    ]);
    expect(termCounts("Images: an image", "plain").get("image")).toBe(1);
  });
});

describe("chunkBm25", () => {
  it("scores whole words only, length in bytes against the average, no other bonus", () => {
    const idf = new Map([
      ["custom", 1.5],
      ["domain", 2],
    ]);
    const text = "Custom domain: set a custom domain."; // 35 bytes
    expect(chunkBm25(text, idf, 35, "plain")).toBe(bm25TermScore(2, 1.5, 1) + bm25TermScore(2, 2, 1));
    expect(chunkBm25("customers of subdomains", idf, 23, "plain")).toBe(0);
    expect(chunkBm25("domains", idf, 14, "stemmed")).toBe(bm25TermScore(1, 2, 0.5));
  });
});
