import { describe, expect, it } from "vitest";
import { PATH_TREE_ID } from "../tree/path-tree.js";
import { chunkId, pageRevision, parseChunkId } from "./page-revision.js";

const HASH = "0".repeat(64);

describe("page revisions and chunk ids", () => {
  it("changes with the text, the groups or the title, and only with them", () => {
    const base = pageRevision({ hash: HASH, title: "A" });
    expect(base).toMatch(/^[0-9a-f]{16}$/);
    expect(pageRevision({ hash: HASH, title: "A", groups: [] })).toBe(base);
    expect(pageRevision({ hash: "1".repeat(64), title: "A" })).not.toBe(base);
    expect(pageRevision({ hash: HASH, title: "B" })).not.toBe(base);
    expect(pageRevision({ hash: HASH, title: "A", groups: ["staff"] })).not.toBe(base);
  });

  it("round-trips ids, including pages with # and unicode in their names", () => {
    for (const page of ["/index.mdx", "/c#/guide#1.md", "/zh/指南.mdx"]) {
      expect(parseChunkId(chunkId(page, "0123456789abcdef", 12))).toEqual({
        page,
        revision: "0123456789abcdef",
        index: 12,
      });
    }
  });

  it("does not take other records for chunks", () => {
    expect(parseChunkId(PATH_TREE_ID)).toBeUndefined();
    expect(parseChunkId("/a.md#nothex0000000000#1")).toBeUndefined();
    expect(parseChunkId("a.md#0123456789abcdef#1")).toBeUndefined();
  });
});
