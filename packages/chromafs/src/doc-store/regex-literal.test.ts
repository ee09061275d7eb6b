import { connectChroma } from "@atrium/chroma";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestChroma, type TestChroma } from "../../test/fixtures/ingest-fixtures.js";
import { regexLiteral } from "./regex-literal.js";

/** Every printable ASCII character, a tab, a newline and some non-ASCII text. */
const ASCII = Array.from({ length: 0x7f - 0x20 }, (_, i) => String.fromCharCode(0x20 + i)).join("");
const SAMPLES = [ASCII, "a.b*c(d)[e]{f}|g+h?i^j$k\\l#m&n-o~p/q", "tab\there\nnewline", "配置 (域名) ü-ß"];

describe("regexLiteral", () => {
  it("writes ASCII punctuation as \\xHH and leaves the rest as is", () => {
    expect(regexLiteral("a.b-c ü")).toBe("a\\x2eb\\x2dc ü");
    expect(regexLiteral("(x)\\")).toBe("\\x28x\\x29\\x5c");
  });

  it("matches each sample literally in JavaScript (u mode, with and without i) and nothing near it", () => {
    for (const sample of SAMPLES) {
      for (const flags of ["u", "iu"]) {
        const regex = new RegExp(`^${regexLiteral(sample)}$`, flags);
        expect(regex.test(sample)).toBe(true);
        expect(regex.test(`${sample}x`)).toBe(false);
      }
    }
    // Punctuation stays literal: `.` does not match any character.
    expect(new RegExp(regexLiteral("a.c"), "u").test("abc")).toBe(false);
  });

  describe("in Chroma's Rust regex engine ($regex on a real server)", () => {
    let chroma: TestChroma;
    beforeAll(async () => {
      chroma = await startTestChroma("regex-literal-");
    }, 60_000);
    afterAll(async () => chroma?.close());

    it("finds exactly the document holding each sample, case-sensitively and with (?i)", async () => {
      const client = await connectChroma(chroma.server.url);
      const collection = await client.createCollection({ name: "literals", embeddingFunction: null });
      const decoys = ["abc", "a b c", "axbxc", "ASCII without punctuation"];
      const documents = [...SAMPLES, ...decoys];
      await collection.add({
        ids: documents.map((_, i) => `d${i}`),
        documents,
        embeddings: documents.map((_, i) => [i, 1]),
      });
      for (const [index, sample] of SAMPLES.entries()) {
        for (const prefix of ["", "(?i)"]) {
          const found = await collection.get({
            whereDocument: { $regex: `${prefix}^${regexLiteral(sample)}$` },
          });
          expect(found.ids).toEqual([`d${index}`]);
        }
      }
      const dotted = await collection.get({ whereDocument: { $regex: regexLiteral("a.c") } });
      expect(dotted.ids).toEqual([]);
    }, 60_000);
  });
});
