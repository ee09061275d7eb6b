import { gzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { PathTreeError, StorageFormatError } from "../errors.js";
import type { PathTreeFile, WrittenPathTree } from "./path-tree.js";
import { decodePathTree, encodePathTree } from "./path-tree-codec.js";

const HASH = "a".repeat(64);
const FILES: Record<string, PathTreeFile> = {
  "/index.mdx": { size: 12, mtime: 1_700_000_000_000, chunks: 1, title: "Home", hash: HASH },
  "/zh/指南.mdx": {
    size: 30,
    mtime: 1_700_000_000_001,
    chunks: 2,
    groups: ["staff"],
    lazy: true,
    hash: HASH,
  },
};
const CHUNKING = { chunker: 2, maxBytes: 8192, mergeBytes: 4096 };
const tree: WrittenPathTree = { version: 2, chunking: CHUNKING, files: FILES, groupRules: {} };
const index = FILES["/index.mdx"];

const encodeJson = (value: unknown) => gzipSync(Buffer.from(JSON.stringify(value))).toString("base64");

function thrown(run: () => unknown): unknown {
  try {
    run();
  } catch (caught) {
    return caught;
  }
  throw new Error("expected a throw");
}

describe("path tree codec", () => {
  it("round-trips a tree of the current format through gzip + base64", () => {
    const text = encodePathTree(tree);
    expect(text).toMatch(/^[A-Za-z0-9+/]+=*$/);
    expect(decodePathTree(text, "docs")).toEqual(tree);
    const withRules = { ...tree, groupRules: { "internal/**": ["staff"], "a/*.md": [] } };
    expect(decodePathTree(encodePathTree(withRules), "docs")).toEqual(withRules);
  });

  it("migrates a format-1 tree that stored its groups mapping: chunker 2 at format 1's sizes", () => {
    const v1 = encodeJson({ version: 1, files: FILES, groupRules: { "internal/**": ["staff"] } });
    expect(decodePathTree(v1, "docs")).toEqual({
      version: 2,
      chunking: { chunker: 2, maxBytes: 8192, mergeBytes: 4096 },
      files: FILES,
      groupRules: { "internal/**": ["staff"] },
    });
  });

  it("migrates a format-1 tree from before the mapping was stored: mapping and chunking unknown", () => {
    expect(decodePathTree(encodeJson({ version: 1, files: FILES }), "docs")).toEqual({
      version: 2,
      files: FILES,
    });
  });

  it("refuses a tree of a newer format, saying so", () => {
    const error = thrown(() =>
      decodePathTree(encodeJson({ version: 3, files: {}, whatever: 1 }), "team-docs"),
    );
    expect(error).toBeInstanceOf(StorageFormatError);
    expect(error).toMatchObject({
      code: "CONFIG",
      isFatal: true,
      collection: "team-docs",
      found: 3,
      supported: 2,
    });
    expect((error as Error).message).toBe(
      "Collection team-docs was written by a newer @atrium/chromafs (format 3, this reads up to 2): " +
        "upgrade the package or re-ingest with this version (atrium-docs ingest <dir> --collection team-docs --rebuild)",
    );
  });

  it.each([
    ["", "the tree document is empty"],
    ["%%%", "not gzip+base64"],
    [gzipSync(Buffer.from("{nope")).toString("base64"), "not JSON"],
    [encodeJson([]), "not an object"],
    [encodeJson({ files: {} }), "version undefined is not a storage format version"],
    [encodeJson({ ...tree, version: 0 }), "version 0 is not a storage format version"],
    [encodeJson({ ...tree, version: "2" }), 'version "2" is not a storage format version'],
    [encodeJson({ ...tree, version: 1.5 }), "version 1.5 is not a storage format version"],
    [encodeJson({ ...tree, files: [] }), "`files` is not an object"],
    [encodeJson({ ...tree, files: { "a.md": index } }), 'path "a.md": not an absolute file path'],
    [encodeJson({ ...tree, files: { "/a/../b.md": index } }), "has an empty, . or .. segment"],
    [encodeJson({ ...tree, files: { "/a.md": { ...index, size: -1 } } }), "/a.md: size is not"],
    [encodeJson({ ...tree, files: { "/a.md": { ...index, hash: "x" } } }), "hash is not a sha-256"],
    [encodeJson({ ...tree, files: { "/a.md": { ...index, groups: [1] } } }), "groups is not a list"],
    [encodeJson({ version: 1, files: { "/a.md": { ...index, size: -1 } } }), "/a.md: size is not"],
    [encodeJson({ ...tree, groupRules: [] }), "`groupRules` is not an object"],
    [encodeJson({ version: 1, files: {}, groupRules: [] }), "`groupRules` is not an object"],
    [
      encodeJson({ ...tree, groupRules: { "internal/**": "staff" } }),
      'groupRules "internal/**": not a list of group names',
    ],
    [
      encodeJson({ ...tree, groupRules: { "internal/**": [""] } }),
      'groupRules "internal/**": not a list of group names',
    ],
    // Only format 1 had trees without a mapping or chunk settings.
    [encodeJson({ version: 2, chunking: CHUNKING, files: {} }), "`groupRules` is not an object"],
    [encodeJson({ version: 2, files: {}, groupRules: {} }), "`chunking` is not an object"],
    [
      encodeJson({ ...tree, chunking: { ...CHUNKING, maxBytes: 0 } }),
      "chunking.maxBytes is not a positive integer",
    ],
    [
      encodeJson({ ...tree, chunking: { maxBytes: 1, mergeBytes: 1 } }),
      "chunking.chunker is not a positive integer",
    ],
  ])("rejects a corrupt tree (%#) with an error naming the collection", (text, reason) => {
    const error = thrown(() => decodePathTree(text, "team-docs"));
    expect(error).toBeInstanceOf(PathTreeError);
    expect(error).toMatchObject({ code: "PARSE", collection: "team-docs", isFatal: true });
    expect((error as Error).message).toContain("The path tree of collection team-docs is corrupt (");
    expect((error as Error).message).toContain(reason);
    expect((error as Error).message).toContain("--collection team-docs --rebuild");
  });
});
