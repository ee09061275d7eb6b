import { gzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { regexLiteral } from "../../doc-store/regex-literal.js";
import { GrepIndexError } from "../../errors.js";
import { ChunkOrdinals } from "./chunk-ordinals.js";
import { GrepIndex } from "./grep-index.js";
import { GrepIndexBuilder } from "./grep-index-builder.js";
import { encodeGrepIndex } from "./grep-index-codec.js";
import { literalRuns } from "./literal-runs.js";
import { wordRuns } from "./word-runs.js";

const MAX = 1024 * 1024;

function indexOf(chunks: readonly string[]): GrepIndex {
  const builder = new GrepIndexBuilder();
  builder.addPage(
    chunks,
    chunks.map((_, index) => index * 10 + 1),
  );
  return GrepIndex.decode(encodeGrepIndex(builder.finish("digest")), MAX);
}

const flagged = (flags: Uint8Array | null) =>
  flags === null ? null : [...flags.keys()].filter((chunk) => flags[chunk] === 1);

describe("literalRuns", () => {
  it("says where each word of the literal must sit in a word of the text", () => {
    expect(literalRuns("Kubernetes")).toEqual([{ word: "kubernetes", placement: "inside" }]);
    expect(literalRuns("api key")).toEqual([
      { word: "api", placement: "suffix" },
      { word: "key", placement: "prefix" },
    ]);
    expect(literalRuns("(x.Y) z")).toEqual([
      { word: "x", placement: "whole" },
      { word: "y", placement: "whole" },
      { word: "z", placement: "prefix" },
    ]);
    expect(literalRuns("-->")).toEqual([]);
  });
});

describe("GrepIndex", () => {
  const chunks = [
    "Deploy with Kubernetes and Helm.\n",
    "kubernetes-operator: set `api_key`\n",
    "Το ΟΔΟΣ είναι\n",
    "配置 API 密钥\n",
    "rapid capital\n",
  ];
  const index = indexOf(chunks);

  it("finds the chunks whose words can hold each run of the literal", () => {
    expect(index.chunkCount).toBe(5);
    expect(index.digest).toBe("digest");
    expect([...index.chunkLines]).toEqual([1, 11, 21, 31, 41]);
    expect(flagged(index.chunksFor("Kubernetes"))).toEqual([0, 1]);
    expect(flagged(index.chunksFor("ubernete"))).toEqual([0, 1]);
    expect(flagged(index.chunksFor("kubernetes-op"))).toEqual([1]);
    expect(flagged(index.chunksFor("api"))).toEqual([1, 3, 4]);
    expect(flagged(index.chunksFor("API 密"))).toEqual([3]);
    expect(flagged(index.chunksFor(" api "))).toEqual([3]);
    expect(flagged(index.chunksFor("`api_key`"))).toEqual([1]);
    expect(flagged(index.chunksFor("οδος"))).toEqual([2]);
    expect(flagged(index.chunksFor("nowhere"))).toEqual([]);
    expect(index.chunksFor("-->")).toBeNull();
  });

  it("reads ASCII chunks (its quick path) into the same words as any other", () => {
    const ascii = "Deploy_2 with K8s-operator: `npm i -g mint` (v2.0)\n";
    const mixed = `${ascii}é`;
    const both = indexOf([ascii, mixed]);
    for (const word of wordRuns(ascii)) {
      expect(flagged(both.chunksFor(word)), word).toEqual([0, 1]);
      expect(flagged(both.chunksFor(`${word} `)), word).toEqual([0, 1]);
    }
    expect(flagged(both.chunksFor("deploy_2 with"))).toEqual([0, 1]);
  });

  it("never misses a chunk holding the literal, case-sensitively or not (random texts)", () => {
    let seed = 7;
    const random = (below: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % below;
    };
    const pieces = [
      "Kube",
      "rnetes",
      "ΣΑΣ",
      "σας",
      "ß",
      "SS",
      "ſt",
      "ﬅ",
      "配置",
      "API",
      "_",
      "é",
      "e\u0301",
      " ",
      "-",
      ".",
      "\n",
      "K",
      "\u212a",
    ];
    const text = (length: number) => Array.from({ length }, () => pieces[random(pieces.length)]).join("");
    const corpus = Array.from({ length: 60 }, () => text(30));
    const built = indexOf(corpus);
    let checked = 0;
    for (let round = 0; round < 400; round++) {
      const source = corpus[random(corpus.length)] as string;
      const start = random(source.length);
      const literal = round % 3 === 0 ? text(1 + random(4)) : source.slice(start, start + 1 + random(12));
      if (literal.includes("\n") || literal === "") continue;
      const flags = built.chunksFor(literal);
      if (flags === null) continue;
      for (const ignoreCase of [false, true]) {
        const matcher = new RegExp(regexLiteral(literal), ignoreCase ? "iv" : "v");
        corpus.forEach((chunk, ordinal) => {
          if (matcher.test(chunk)) {
            checked++;
            expect(flags[ordinal], `${JSON.stringify(literal)} in chunk ${ordinal}`).toBe(1);
          }
        });
      }
    }
    expect(checked).toBeGreaterThan(500);
  });

  it("refuses a damaged index with a GrepIndexError naming what is wrong", () => {
    const good = encodeGrepIndex(new GrepIndexBuilder().finish("d"));
    expect(GrepIndex.decode(good, MAX).chunkCount).toBe(0);
    const stored = (raw: Buffer) => gzipSync(raw).toString("base64");
    const framed = (header: object, body: Buffer) => {
      const json = Buffer.from(JSON.stringify(header));
      const length = Buffer.alloc(4);
      length.writeUInt32LE(json.length);
      return stored(Buffer.concat([length, json, body]));
    };
    const header = {
      format: 1,
      digest: "d",
      tokens: 1,
      chunks: 1,
      vocabularyBytes: 1,
      postingsBytes: 2,
      linesBytes: 1,
    };
    const cases: [string, string][] = [
      ["not base64 at all", "the grep index is not gzip+base64 or is over 1048576 bytes"],
      [stored(Buffer.from([1])), "the grep index is truncated"],
      [framed({ ...header, format: 9 }, Buffer.from([])), "the grep index has format 9, this reads 1"],
      [framed(header, Buffer.from([0x61, 1, 0])), "the grep index's sections don't add up to its size"],
      [framed(header, Buffer.from([0x61, 1, 5, 1])), "the grep index postings point past its chunks"],
      [framed(header, Buffer.from([0x61, 0, 0, 1])), "the grep index postings are malformed"],
      [framed(header, Buffer.from([0x61, 1, 0, 0])), "the grep index line numbers are malformed"],
    ];
    for (const [document, message] of cases) {
      expect(() => GrepIndex.decode(document, MAX)).toThrow(new GrepIndexError(message));
    }
    const big = encodeGrepIndex({
      digest: "d",
      tokens: ["x".repeat(5000)],
      postings: new Uint8Array([1, 0]),
      lines: new Uint8Array([1]),
      chunks: 1,
    });
    expect(() => GrepIndex.decode(big, 1000)).toThrow("is over 1000 bytes");
  });
});

describe("ChunkOrdinals", () => {
  it("numbers chunks in sorted path order and finds each one's page", () => {
    const ordinals = new ChunkOrdinals([
      ["/b.md", 2],
      ["/a.md", 1],
      ["/empty.md", 0],
      ["/c.md", 3],
    ]);
    expect(ordinals.paths).toEqual(["/a.md", "/b.md", "/c.md", "/empty.md"]);
    expect(ordinals.total).toBe(6);
    expect([0, 1, 2, 3, 4, 5].map((ordinal) => ordinals.pageOf(ordinal))).toEqual([0, 1, 1, 2, 2, 2]);
    expect(ordinals.firstOf(2)).toBe(3);
  });
});
