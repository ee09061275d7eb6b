import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { ConfigError } from "@atrium/spec";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { aiSdkEmbedding } from "../src/embedding/ai-sdk-embedding.js";
import { resolveEmbedding } from "../src/embedding/resolve-embedding.js";
import { DEFAULT_CHROMA_LIMITS } from "../src/limits.js";
import { type EmbeddingsServer, startEmbeddingsServer } from "./embeddings-server.js";

let server: EmbeddingsServer;
beforeAll(async () => {
  server = await startEmbeddingsServer((text) => [text.length, 1]);
});
afterAll(() => server.close());

const texts = (count: number) => Array.from({ length: count }, (_, i) => `text ${i}`);

describe("the AI SDK embedding sends at most maxEmbedBatchTexts texts per request", () => {
  it("splits 200 texts into requests of 96, 96 and 8 by default, answers in order", async () => {
    expect(DEFAULT_CHROMA_LIMITS.maxEmbedBatchTexts).toBe(96);
    server.seen.length = 0;
    const embedding = resolveEmbedding(`openai-compatible:${server.base}#bge`, {});
    const vectors = await embedding.embed(texts(200));
    expect(server.seen.map((request) => request.input.length)).toEqual([96, 96, 8]);
    expect(server.seen.flatMap((request) => request.input)).toEqual(texts(200));
    expect(vectors).toEqual(texts(200).map((text) => [text.length, 1]));
  });

  it("takes a smaller batch size as an option", async () => {
    server.seen.length = 0;
    const model = createOpenAICompatible({ name: "local", baseURL: server.base }).embeddingModel("bge");
    const embedding = aiSdkEmbedding(model, { maxBatchSize: 3 });
    await embedding.embed(texts(7));
    expect(server.seen.map((request) => request.input)).toEqual([
      ["text 0", "text 1", "text 2"],
      ["text 3", "text 4", "text 5"],
      ["text 6"],
    ]);
  });

  it("refuses a batch size that is not a positive integer", () => {
    const model = createOpenAICompatible({ name: "local", baseURL: server.base }).embeddingModel("bge");
    expect(() => aiSdkEmbedding(model, { maxBatchSize: 0 })).toThrow(
      new ConfigError("@atrium/chroma limit maxEmbedBatchTexts must be a positive integer, got 0"),
    );
  });
});
