import { describe, expect, it } from "vitest";
import { DEFAULT_CHROMA_LIMITS } from "../limits.js";
import { embedText, hashingEmbedding } from "./hashing-embedding.js";

const norm = (vector: number[]) => Math.sqrt(vector.reduce((sum, value) => sum + value * value, 0));
const cosine = (a: number[], b: number[]) =>
  a.reduce((sum, value, index) => sum + value * (b[index] ?? 0), 0);

describe("hashingEmbedding", () => {
  const embedding = hashingEmbedding();

  it("has an id naming its settings and the requested size", async () => {
    expect(embedding.id).toBe("hashing-v1-384");
    expect(hashingEmbedding({ dimensions: 64 }).id).toBe("hashing-v1-64");
    const [vector] = await hashingEmbedding({ dimensions: 64 }).embed(["hello"]);
    expect(vector).toHaveLength(64);
    expect((await embedding.embed(["hello"]))[0]).toHaveLength(384);
  });

  it("is deterministic across calls and instances", async () => {
    const text = "Configure a custom domain for your docs";
    const [first] = await embedding.embed([text]);
    const [again] = await hashingEmbedding().embed([text]);
    expect(again).toEqual(first);
    expect(embedding.deterministic).toBe(true);
  });

  it("keeps the vectors of hashing-v1 fixed (stored collections depend on them)", () => {
    // Pinned once: a change to the hashing must come with a new id, never new vectors under v1.
    expect(embedText("Chroma docs", 8)).toEqual([0.5, 0, 0.25, 0, 0.25, 0, -0.75, -0.25]);
    const third = 1 / Math.sqrt(6);
    expect(embedText("配置", 8)).toEqual([0, 2 * third, -third, third, 0, 0, 0, 0]);
  });

  it("returns unit vectors, including for unicode and empty text", async () => {
    const vectors = await embedding.embed(["Hello world", "配置自定义域名", "Ünïcödé ✓", "", "  ... !!"]);
    for (const vector of vectors) expect(norm(vector)).toBeCloseTo(1, 12);
    expect(vectors[3]).toEqual([1, ...new Array(383).fill(0)]);
    expect(vectors[4]).toEqual(vectors[3]);
  });

  it("puts related texts closer than unrelated ones", async () => {
    const [domain, domains, pricing] = await embedding.embed([
      "How to configure a custom domain for your documentation site",
      "Setting up custom domains for documentation",
      "Billing plans and invoices for enterprise customers",
    ]);
    const related = cosine(domain as number[], domains as number[]);
    const unrelated = cosine(domain as number[], pricing as number[]);
    expect(related).toBeGreaterThan(0.4);
    expect(unrelated).toBeLessThan(related / 2);
  });

  it("reads at most maxHashingTextChars of a text", () => {
    const head = `${"w".repeat(DEFAULT_CHROMA_LIMITS.maxHashingTextChars - 6)} `; // "zebra" ends exactly at the limit
    expect(embedText(`${head}zebra and more`, 64)).toEqual(embedText(`${head}zebra`, 64));
    expect(embedText(`${head}zebra`, 64)).not.toEqual(embedText(head, 64));
  });

  it("ignores case", () => {
    expect(embedText("API Reference", 128)).toEqual(embedText("api reference", 128));
  });

  it("rejects sizes it can't honour", () => {
    expect(() => hashingEmbedding({ dimensions: 4 })).toThrow(
      "dimensions must be an integer from 8 to 8192, got 4",
    );
    expect(() => hashingEmbedding({ dimensions: 100.5 })).toThrow("got 100.5");
  });
});
