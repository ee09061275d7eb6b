import { describe, expect, it } from "vitest";
import { PATH_TREE_ID } from "../tree/path-tree.js";
import { format1Chunking } from "../tree/path-tree-migrations.js";
import { chunkId, currentChunking, pageRevision, parseChunkId } from "./page-revision.js";

const HASH = "0".repeat(64);
const CHUNKING = currentChunking();

describe("page revisions and chunk ids", () => {
  it("changes with the text, the groups or the title, and only with them", () => {
    const base = pageRevision({ hash: HASH, title: "A" }, CHUNKING);
    expect(base).toMatch(/^[0-9a-f]{16}$/);
    expect(pageRevision({ hash: HASH, title: "A", groups: [] }, CHUNKING)).toBe(base);
    expect(pageRevision({ hash: "1".repeat(64), title: "A" }, CHUNKING)).not.toBe(base);
    expect(pageRevision({ hash: HASH, title: "B" }, CHUNKING)).not.toBe(base);
    expect(pageRevision({ hash: HASH, title: "A", groups: ["staff"] }, CHUNKING)).not.toBe(base);
    expect(pageRevision({ hash: HASH, title: "A" }, { ...CHUNKING, chunker: 1 })).not.toBe(base);
    expect(pageRevision({ hash: HASH, title: "A" }, { ...CHUNKING, maxBytes: 1024 })).not.toBe(base);
  });

  it("derives the revisions stored chunks carry exactly as every earlier ingest did", () => {
    // Chunk ids are stored data: a change here makes every existing collection unreadable.
    expect(CHUNKING).toEqual({ chunker: 2, maxBytes: 8192, mergeBytes: 4096 });
    expect(pageRevision({ hash: HASH, title: "A" }, format1Chunking(2))).toBe("808a59d634774c58");
    expect(pageRevision({ hash: HASH, title: "A", groups: ["staff"] }, format1Chunking(1))).toBe(
      "e402503a31c555ec",
    );
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
