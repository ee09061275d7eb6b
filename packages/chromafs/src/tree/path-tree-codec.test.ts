import { gzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import type { PathTree } from "./path-tree.js";
import { decodePathTree, encodePathTree, PathTreeError } from "./path-tree-codec.js";

const HASH = "a".repeat(64);
const tree: PathTree = {
  version: 1,
  files: {
    "/index.mdx": { size: 12, mtime: 1_700_000_000_000, chunks: 1, title: "Home", hash: HASH },
    "/zh/指南.mdx": {
      size: 30,
      mtime: 1_700_000_000_001,
      chunks: 2,
      groups: ["staff"],
      lazy: true,
      hash: HASH,
    },
  },
};

const encodeJson = (value: unknown) => gzipSync(Buffer.from(JSON.stringify(value))).toString("base64");

describe("path tree codec", () => {
  it("round-trips a tree through gzip + base64", () => {
    const text = encodePathTree(tree);
    expect(text).toMatch(/^[A-Za-z0-9+/]+=*$/);
    expect(decodePathTree(text, "docs")).toEqual(tree);
  });

  it("round-trips the stored groups mapping, and trees without one (older ingests) still decode", () => {
    const withRules: PathTree = { ...tree, groupRules: { "internal/**": ["staff"], "a/*.md": [] } };
    expect(decodePathTree(encodePathTree(withRules), "docs")).toEqual(withRules);
    expect(decodePathTree(encodeJson({ version: 1, files: tree.files }), "docs").groupRules).toBeUndefined();
    expect(decodePathTree(encodePathTree({ ...tree, groupRules: {} }), "docs").groupRules).toEqual({});
  });

  it.each([
    ["", "the tree document is empty"],
    ["%%%", "not gzip+base64"],
    [gzipSync(Buffer.from("{nope")).toString("base64"), "not JSON"],
    [encodeJson([]), "not an object"],
    [encodeJson({ version: 2, files: {} }), "version 2 is not the supported version 1"],
    [encodeJson({ version: 1, files: [] }), "`files` is not an object"],
    [
      encodeJson({ version: 1, files: { "a.md": tree.files["/index.mdx"] } }),
      'path "a.md": not an absolute file path',
    ],
    [
      encodeJson({ version: 1, files: { "/a/../b.md": tree.files["/index.mdx"] } }),
      "has an empty, . or .. segment",
    ],
    [
      encodeJson({ version: 1, files: { "/a.md": { ...tree.files["/index.mdx"], size: -1 } } }),
      "/a.md: size is not",
    ],
    [
      encodeJson({ version: 1, files: { "/a.md": { ...tree.files["/index.mdx"], hash: "x" } } }),
      "hash is not a sha-256",
    ],
    [
      encodeJson({ version: 1, files: { "/a.md": { ...tree.files["/index.mdx"], groups: [1] } } }),
      "groups is not a list",
    ],
    [encodeJson({ version: 1, files: {}, groupRules: [] }), "`groupRules` is not an object"],
    [
      encodeJson({ version: 1, files: {}, groupRules: { "internal/**": "staff" } }),
      'groupRules "internal/**": not a list of group names',
    ],
    [
      encodeJson({ version: 1, files: {}, groupRules: { "internal/**": [""] } }),
      'groupRules "internal/**": not a list of group names',
    ],
  ])("rejects a corrupt tree (%#) with an error naming the collection", (text, reason) => {
    const error = (() => {
      try {
        decodePathTree(text, "team-docs");
      } catch (caught) {
        return caught;
      }
    })();
    expect(error).toBeInstanceOf(PathTreeError);
    expect(error).toMatchObject({ code: "PARSE", collection: "team-docs", isFatal: true });
    expect((error as Error).message).toContain("The path tree of collection team-docs is corrupt (");
    expect((error as Error).message).toContain(reason);
    expect((error as Error).message).toContain("--collection team-docs --rebuild");
  });
});
