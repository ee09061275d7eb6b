import { describe, expect, it } from "vitest";
import { chunkPage, splitLines } from "./chunk-page.js";

const markdown = { markdown: true, mergeBytes: 0 };

describe("chunkPage", () => {
  it("cuts before each ATX heading and concatenates back byte for byte", () => {
    const page =
      "---\ntitle: T\n# a YAML comment, not a heading\n---\nIntro\n# One\nText\n## Two\n\n###Not a heading\n#### Three\nend";
    const chunks = chunkPage(page, markdown);
    expect(chunks).toEqual([
      "---\ntitle: T\n# a YAML comment, not a heading\n---\nIntro\n",
      "# One\nText\n",
      "## Two\n\n###Not a heading\n",
      "#### Three\nend",
    ]);
    expect(chunks.join("")).toBe(page);
  });

  it("ignores headings inside fenced code, including longer and tilde fences", () => {
    const page = "# A\n````md\n# comment\n```\n# still code\n`````\n# B\n~~~~\n# code\n```\n~~~~\n# C\n";
    expect(chunkPage(page, markdown)).toEqual([
      "# A\n````md\n# comment\n```\n# still code\n`````\n",
      "# B\n~~~~\n# code\n```\n~~~~\n",
      "# C\n",
    ]);
  });

  it("treats an inline ``` span as text, not a fence", () => {
    const page = "# A\n```inline``` code\n# B\n";
    expect(chunkPage(page, markdown)).toEqual(["# A\n```inline``` code\n", "# B\n"]);
  });

  it("merges small neighbouring sections up to the merge size, still starting at headings", () => {
    const page = "# A\naaaa\n# B\nbbbb\n# C\ncccc\n";
    expect(chunkPage(page, { markdown: true, mergeBytes: 20 })).toEqual([
      "# A\naaaa\n# B\nbbbb\n",
      "# C\ncccc\n",
    ]);
    expect(chunkPage(page, { markdown: true })).toEqual([page]);
  });

  it("splits big sections between lines, never inside one", () => {
    const line = "0123456789\n";
    const page = `# Big\n${line.repeat(10)}`;
    const chunks = chunkPage(page, { markdown: true, maxBytes: 40, mergeBytes: 0 });
    expect(chunks).toEqual([`# Big\n${line.repeat(3)}`, line.repeat(3), line.repeat(3), line]);
    expect(chunks.join("")).toBe(page);
  });

  it("keeps a line longer than the cap whole, and counts UTF-8 bytes", () => {
    const long = `${"é".repeat(30)}\n`;
    expect(chunkPage(`a\n${long}b\n`, { markdown: false, maxBytes: 10 })).toEqual(["a\n", long, "b\n"]);
  });

  it("takes a front matter of hundreds of thousands of lines (no spread of them onto the stack)", () => {
    const text = `---\n${"k: v\n".repeat(200_000)}---\n# Title\nbody\n`;
    const chunks = chunkPage(text, { markdown: true, maxBytes: 8192 });
    expect(chunks.join("")).toBe(text);
    expect(chunks.length).toBe(124);
    expect(chunks.at(-1)).toBe("# Title\nbody\n");
  });

  it("keeps CRLF line ends and pages without a final newline", () => {
    const page = "# A\r\nx\r\n# B\r\ny";
    expect(chunkPage(page, markdown)).toEqual(["# A\r\nx\r\n", "# B\r\ny"]);
  });

  it("stores an empty page as one empty chunk and non-markdown by size only", () => {
    expect(chunkPage("", markdown)).toEqual([""]);
    expect(chunkPage('{\n  "#": 1\n}\n', { markdown: false })).toEqual(['{\n  "#": 1\n}\n']);
  });

  it("splitLines keeps terminators", () => {
    expect(splitLines("a\nb\n\nc")).toEqual(["a\n", "b\n", "\n", "c"]);
  });
});
