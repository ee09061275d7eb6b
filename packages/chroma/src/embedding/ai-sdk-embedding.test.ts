import type { EmbeddingModel } from "ai";
import { describe, expect, it } from "vitest";
import { aiSdkEmbedding } from "./ai-sdk-embedding.js";

/**
 * A scripted AI SDK embedding model (the one part that can't be real offline): vectors are
 * [length, vowels, 1] of each text, and every call is recorded so batching is visible.
 */
function scriptedModel(maxEmbeddingsPerCall: number) {
  const calls: string[][] = [];
  const model: EmbeddingModel = {
    specificationVersion: "v3",
    provider: "scripted",
    modelId: "letters-3",
    maxEmbeddingsPerCall,
    supportsParallelCalls: false,
    async doEmbed({ values }) {
      calls.push([...values]);
      return {
        embeddings: values.map((value) => [value.length, (value.match(/[aeiou]/g) ?? []).length, 1]),
        warnings: [],
      };
    },
  };
  return { model, calls };
}

describe("aiSdkEmbedding", () => {
  it("embeds through the model in batches of its per-call limit, keeping order", async () => {
    const { model, calls } = scriptedModel(2);
    const embedding = aiSdkEmbedding(model, { dimensions: 3 });
    expect(embedding.id).toBe("ai-sdk-scripted-letters-3");
    const vectors = await embedding.embed(["a", "bee", "seas", "x", "queue"]);
    expect(vectors).toEqual([
      [1, 1, 1],
      [3, 2, 1],
      [4, 2, 1],
      [1, 0, 1],
      [5, 4, 1],
    ]);
    expect(calls).toEqual([["a", "bee"], ["seas", "x"], ["queue"]]);
    expect(await embedding.embed([])).toEqual([]);
    expect(calls).toHaveLength(3);
  });

  it("refuses vectors of the wrong size when a size is expected", async () => {
    const { model } = scriptedModel(10);
    await expect(aiSdkEmbedding(model, { dimensions: 384 }).embed(["a"])).rejects.toThrow(
      "Embedding model letters-3 returned 3-dimensional vectors; 384 were expected",
    );
  });

  it("needs a model object, not a registry string", () => {
    expect(() => aiSdkEmbedding("openai:text-embedding-3-small")).toThrow("needs an embedding model object");
  });
});
