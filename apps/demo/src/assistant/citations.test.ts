import { describe, expect, it } from "vitest";
import { normalizePagePath, pagePathsOf, readFinalAnswer, verifyCitations } from "./citations.js";

describe("citations", () => {
  it("reads { answer, sources } and normalises the paths", () => {
    expect(
      readFinalAnswer({ answer: "Use DNS.", sources: ["customize/custom-domain.mdx", "/a.md", 3] }),
    ).toEqual({
      answer: "Use DNS.",
      sources: ["/customize/custom-domain.mdx", "/a.md"],
    });
  });

  it("takes the page paths out of a plain-text answer", () => {
    expect(readFinalAnswer("See /cli/preview.mdx and (./guides/x.md).")).toEqual({
      answer: "See /cli/preview.mdx and (./guides/x.md).",
      sources: ["/cli/preview.mdx", "/guides/x.md"],
    });
    expect(readFinalAnswer(undefined)).toEqual({ answer: "", sources: [] });
  });

  it("verifies a source only when a docs command showed or read it", () => {
    const seen = new Set([
      ...pagePathsOf("grep -rl dns /", "/customize/custom-domain.mdx\n/zh/x.mdx\n", 0),
      ...pagePathsOf("cat '/cli/preview.mdx'", "# Preview\n", 0),
      ...pagePathsOf("cat /missing.mdx", "", 1),
    ]);
    expect(
      verifyCitations(["/customize/custom-domain.mdx", "/cli/preview.mdx", "/missing.mdx"], seen),
    ).toEqual([
      { path: "/customize/custom-domain.mdx", verified: true },
      { path: "/cli/preview.mdx", verified: true },
      { path: "/missing.mdx", verified: false },
    ]);
    expect(normalizePagePath(" ./a/b.mdx ")).toBe("/a/b.mdx");
  });
});
