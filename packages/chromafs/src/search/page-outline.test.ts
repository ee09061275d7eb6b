import { bm25TermScore } from "@atrium/kit";
import { describe, expect, it } from "vitest";
import { outlineScores, pageOutline } from "./page-outline.js";

const PAGE = [
  "---",
  'title: "Custom 404 page"',
  'description: "Guide visitors who reach a missing page."',
  'icon: "triangle"',
  'keywords: ["error page"]',
  "---",
  "",
  "Body text about errors is not in the outline.",
  "",
  "## Configuration",
  "",
  "```yaml",
  "# a comment in a code block is no heading",
  "```",
  "### Redirect instead",
  "",
].join("\n");

describe("pageOutline", () => {
  it("is the file name, the summary keys of the front matter and the headings", () => {
    expect(pageOutline("/customize/custom-404-page.mdx", PAGE)).toBe(
      [
        "custom-404-page",
        ' "Custom 404 page"',
        ' "Guide visitors who reach a missing page."',
        ' ["error page"]',
        "## Configuration",
        "### Redirect instead",
      ].join("\n"),
    );
    expect(pageOutline("/index.md", "Just text.\n")).toBe("index");
  });
});

describe("outlineScores", () => {
  it("is BM25 of each outline with the given IDF, lengths against the outlines' average", () => {
    const outlines = new Map([
      ["/a.mdx", "visitors visitor page"], // 3 words
      ["/b.mdx", "page"], // 1 word
      ["/c.mdx", "nothing here at all ok"], // 5 words
    ]);
    const idf = new Map([
      ["visitor", 2],
      ["page", 0.5],
    ]);
    const scores = outlineScores(outlines, idf, "stemmed");
    expect([...scores.keys()]).toEqual(["/a.mdx", "/b.mdx"]);
    expect(scores.get("/a.mdx")).toBe(bm25TermScore(2, 2, 1) + bm25TermScore(1, 0.5, 1));
    expect(scores.get("/b.mdx")).toBe(bm25TermScore(1, 0.5, 1 / 3));
    expect(outlineScores(outlines, idf, "plain").get("/a.mdx")).toBe(
      bm25TermScore(1, 2, 1) + bm25TermScore(1, 0.5, 1),
    );
  });
});
