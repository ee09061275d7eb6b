import { describe, expect, it } from "vitest";
import { chunkProjectFile, markdownHeadings } from "./chunk-project-file.js";

const markdown = [
  "Intro line before any heading.",
  "",
  "# Guide",
  "## Install",
  "Run the installer.",
  "",
  "```sh",
  "# not a heading",
  "npm i",
  "```",
  "## Use",
  "Call it.",
  "",
].join("\n");

describe("chunkProjectFile", () => {
  it("cuts markdown at headings (not inside code fences); a bare heading joins the next section", () => {
    expect(chunkProjectFile("docs/guide.md", markdown, 1000)).toEqual([
      { content: "Intro line before any heading.", lineStart: 1, lineEnd: 1, position: 0 },
      {
        content: "# Guide\n## Install\nRun the installer.\n\n```sh\n# not a heading\nnpm i\n```",
        lineStart: 3,
        lineEnd: 10,
        heading: "Guide › Install",
        position: 1,
      },
      { content: "## Use\nCall it.", lineStart: 11, lineEnd: 12, heading: "Guide › Use", position: 2 },
    ]);
  });

  it("packs code blocks separated by blank lines up to the cap, keeping line numbers", () => {
    const code = "const a = 1;\nconst b = 2;\n\nfunction f() {\n  return a + b;\n}\n\nexport { f };\n";
    expect(chunkProjectFile("src/f.ts", code, 45)).toEqual([
      { content: "const a = 1;\nconst b = 2;", lineStart: 1, lineEnd: 2, position: 0 },
      { content: "function f() {\n  return a + b;\n}", lineStart: 4, lineEnd: 6, position: 1 },
      { content: "export { f };", lineStart: 8, lineEnd: 8, position: 2 },
    ]);
  });

  it("returns nothing for an empty file", () => {
    expect(chunkProjectFile("empty.ts", "\n\n", 100)).toEqual([]);
  });
});

describe("markdownHeadings", () => {
  it("lists ATX headings outside fences", () => {
    expect(markdownHeadings(markdown)).toEqual(["Guide", "Install", "Use"]);
  });
});
