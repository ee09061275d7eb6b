import { ConfigError } from "@atrium/spec";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type EmbeddingsServer, startEmbeddingsServer } from "../../test/embeddings-server.js";
import { EMBEDDING_SPEC_FORMS, resolveEmbedding } from "./resolve-embedding.js";

describe("resolveEmbedding", () => {
  // Each text's vector is [its length, 1].
  let server: EmbeddingsServer;
  let base: string;
  let seen: EmbeddingsServer["seen"];
  beforeAll(async () => {
    server = await startEmbeddingsServer((text) => [text.length, 1]);
    ({ base, seen } = server);
  });
  afterAll(async () => server?.close());

  it("resolves hashing, and the ids hashing collections record", async () => {
    expect(resolveEmbedding("hashing").id).toBe("hashing-v1-384");
    expect(resolveEmbedding(" hashing-v1-64 ").id).toBe("hashing-v1-64");
    const [vector] = await resolveEmbedding("hashing-v1-64").embed(["a"]);
    expect(vector).toHaveLength(64);
    expect(() => resolveEmbedding("hashing-v1-3")).toThrow("dimensions must be an integer from");
  });

  it("embeds through an OpenAI-compatible server; the id is the spec, so it resolves again", async () => {
    const spec = `openai-compatible:${base}/#test-embed`;
    const embedding = resolveEmbedding(spec, { OPENAI_COMPATIBLE_API_KEY: "k-1" });
    expect(embedding.id).toBe(spec);
    expect(seen).toEqual([]);
    expect(await embedding.embed(["ab", "abcd"])).toEqual([
      [2, 1],
      [4, 1],
    ]);
    expect(await embedding.embed(["x"])).toEqual([[1, 1]]);
    expect(seen).toEqual([
      { path: "/v1/embeddings", authorization: "Bearer k-1", model: "test-embed", input: ["ab", "abcd"] },
      { path: "/v1/embeddings", authorization: "Bearer k-1", model: "test-embed", input: ["x"] },
    ]);
    expect(resolveEmbedding(embedding.id, {}).id).toBe(spec);
  });

  it("reads keys and base URLs from the env it is given", async () => {
    seen.length = 0;
    const openai = resolveEmbedding("openai:text-embedding-3-small", {
      OPENAI_API_KEY: "sk-test",
      OPENAI_BASE_URL: base,
    });
    const ollama = resolveEmbedding("ollama: nomic-embed-text", { OLLAMA_BASE_URL: base });
    expect([openai.id, ollama.id]).toEqual(["openai:text-embedding-3-small", "ollama:nomic-embed-text"]);
    expect(await openai.embed(["abc"])).toEqual([[3, 1]]);
    expect(await ollama.embed(["abcde"])).toEqual([[5, 1]]);
    expect(seen.map(({ authorization, model }) => [authorization, model])).toEqual([
      ["Bearer sk-test", "text-embedding-3-small"],
      [undefined, "nomic-embed-text"],
    ]);
  });

  it("refuses bad specs, naming the accepted forms", () => {
    for (const spec of ["", "bge", "cohere:embed-v3", "openai:", "hashing:64"]) {
      expect(() => resolveEmbedding(spec, {})).toThrow(
        new ConfigError(`Unknown embedding ${JSON.stringify(spec)}; use one of:\n  ${EMBEDDING_SPEC_FORMS}`),
      );
    }
    expect(() => resolveEmbedding("openai:text-embedding-3-small", {})).toThrow(
      new ConfigError(
        "openai:text-embedding-3-small needs an API key: set the environment variable OPENAI_API_KEY",
      ),
    );
    expect(() => resolveEmbedding("openai-compatible:http://127.0.0.1:8000/v1", {})).toThrow(
      "has no model name: write openai-compatible:<baseURL>#<model>",
    );
    expect(() => resolveEmbedding("openai-compatible:localhost:8000#bge", {})).toThrow(
      new ConfigError(
        'openai-compatible:localhost:8000#bge: the base URL "localhost:8000" is not an http(s) URL; give one like http://127.0.0.1:8000/v1',
      ),
    );
    expect(() => resolveEmbedding("ollama:bge-m3", { OLLAMA_BASE_URL: "ftp://x" })).toThrow(
      'ollama:bge-m3: the base URL "ftp://x" (from OLLAMA_BASE_URL) is not an http(s) URL',
    );
  });
});
