import { describe, expect, it } from "vitest";
import { accessMetadata } from "../collection-schema/access-keys.js";
import { parseGroupRules, validateGroups } from "./access-groups.js";
import { readFrontMatter } from "./front-matter.js";

describe("groups file rules", () => {
  const rules = parseGroupRules(
    { "internal/**": ["staff"], "/internal/secret/*.mdx": ["ops", "staff"], "**/.draft.md": "editors" },
    "groups.json",
  );

  it("unions the groups of every matching glob, sorted", () => {
    expect(rules.groupsFor("internal/plan.mdx")).toEqual(["staff"]);
    expect(rules.groupsFor("internal/secret/keys.mdx")).toEqual(["ops", "staff"]);
    expect(rules.groupsFor("guides/.draft.md")).toEqual(["editors"]);
    expect(rules.groupsFor("guides/intro.mdx")).toEqual([]);
  });

  it("keeps the mapping normalized, globs as written, for storing with the collection", () => {
    expect(rules.mapping).toEqual({
      "internal/**": ["staff"],
      "/internal/secret/*.mdx": ["ops", "staff"],
      "**/.draft.md": ["editors"],
    });
    expect(parseGroupRules({ "a/**": ["b", "a", "b"] }, "g.json").mapping).toEqual({ "a/**": ["a", "b"] });
    expect(parseGroupRules({}, "g.json").mapping).toEqual({});
  });

  it("names the file and the bad entry", () => {
    expect(() => parseGroupRules([], "g.json")).toThrow("Groups file g.json must be a JSON object");
    expect(() => parseGroupRules({ "a/**": [1] }, "g.json")).toThrow(
      'Groups file g.json: the value of "a/**" must be a list of group names',
    );
    expect(() => parseGroupRules({ "a/**": ["no spaces"] }, "g.json")).toThrow(
      'Groups file g.json: group name "no spaces" is invalid',
    );
  });

  it("turns groups into one boolean metadata key each, or public", () => {
    expect(accessMetadata([])).toEqual({ public: true });
    expect(accessMetadata(["ops", "staff"])).toEqual({ group_ops: true, group_staff: true });
    expect(validateGroups(["b", "a", "b"], "x")).toEqual(["a", "b"]);
  });
});

describe("front-matter", () => {
  it("reads title and groups (a list, one name, or none)", () => {
    expect(readFrontMatter("---\ntitle: 'Hi: there'\ngroups: [a, b]\n---\n# X\n", "/p.md")).toEqual({
      title: "Hi: there",
      groups: ["a", "b"],
    });
    expect(readFrontMatter("---\ngroups: staff\n---\n", "/p.md")).toEqual({ groups: ["staff"] });
    expect(readFrontMatter("---\ngroups: []\n---\n", "/p.md")).toEqual({ groups: [] });
    expect(readFrontMatter("---\ntitle: T\n---\n", "/p.md")).toEqual({ title: "T" });
    expect(readFrontMatter("# No front-matter\n", "/p.md")).toEqual({});
    expect(readFrontMatter("---\nnever closed\n", "/p.md")).toEqual({});
  });

  it("refuses front-matter it can't read instead of guessing the page is public", () => {
    expect(() => readFrontMatter("---\ngroups: [a\n---\n", "/p.md")).toThrow(
      "/p.md: its YAML front-matter does not parse",
    );
    expect(() => readFrontMatter("---\ngroups: {a: 1}\n---\n", "/p.md")).toThrow(
      "/p.md: front-matter `groups` must be a group name or a list of group names",
    );
  });
});
