import { describe, expect, it } from "vitest";
import { readPage } from "./page-sentences.js";

describe("readPage", () => {
  it("takes title and description from front matter and prose as sentences, skipping code and tags", () => {
    const page = [
      "---",
      'title: "Custom domain"',
      "description: Host your site at your own domain.",
      "---",
      'import X from "/snippets/x.mdx";',
      "",
      "Host your docs at **your own** domain. See [the DNS guide](/dns) for records.",
      "",
      "<Note>",
      "  Subpath hosting needs a proxy in front of the site.",
      "</Note>",
      "",
      "```bash",
      "mint add-domain docs.example.com",
      "```",
      "- Add a CNAME record at your DNS provider.",
      "| a | b |",
    ].join("\n");
    expect(readPage(page)).toEqual({
      title: "Custom domain",
      description: "Host your site at your own domain.",
      sentences: [
        "Host your docs at your own domain.",
        "See the DNS guide for records.",
        "Subpath hosting needs a proxy in front of the site.",
        "Add a CNAME record at your DNS provider.",
      ],
    });
  });

  it("takes a short first line of a code block with the sentence that introduces it", () => {
    const page =
      "In your docs folder, run:\n\n```bash\nmint dev\nmore\n```\n\nThe preview opens in your browser.\n\n```json\n{}\n```\n";
    expect(readPage(page).sentences).toEqual([
      "In your docs folder, run: `mint dev`",
      "The preview opens in your browser.",
    ]);
  });
});
