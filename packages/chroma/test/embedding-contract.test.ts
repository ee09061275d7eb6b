import { describeContract, embeddingContract } from "@atrium/spec/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { embedText, hashingEmbedding, resolveEmbedding } from "../src/index.js";
import { type EmbeddingsServer, startEmbeddingsServer } from "./embeddings-server.js";

// Every Embedding in this package runs the one contract suite.
describeContract(embeddingContract(async () => hashingEmbedding()));
describeContract(embeddingContract(async () => hashingEmbedding({ dimensions: 64 })));

describe("the AI SDK embedding over the wire", () => {
  let server: EmbeddingsServer;
  let slow: EmbeddingsServer;
  beforeAll(async () => {
    // The server answers with hashing vectors: lexical, but real numbers through the real adapter.
    server = await startEmbeddingsServer((text) => embedText(text, 128));
    slow = await startEmbeddingsServer((text) => embedText(text, 128), 5_000);
  });
  afterAll(async () => {
    await server?.close();
    await slow?.close();
  });

  describeContract(
    embeddingContract(async () => resolveEmbedding(`openai-compatible:${server.base}#hashing-128`, {})),
  );

  it("learns its dimensions from the first answer", async () => {
    const embedding = resolveEmbedding(`openai-compatible:${server.base}#hashing-128`, {});
    expect(embedding.dimensions).toBeUndefined();
    expect(embedding.deterministic).toBe(false);
    await embedding.embed(["hello"]);
    expect(embedding.dimensions).toBe(128);
  });

  it("aborting a call in flight rejects with AbortError at once", async () => {
    const embedding = resolveEmbedding(`openai-compatible:${slow.base}#slow`, {});
    const controller = new AbortController();
    const started = performance.now();
    const pending = embedding.embed(["a slow answer"], { signal: controller.signal });
    setTimeout(() => controller.abort(), 50);
    await expect(pending).rejects.toMatchObject({ name: "AbortError", code: "ABORTED" });
    expect(performance.now() - started).toBeLessThan(2_000);
  });
});
