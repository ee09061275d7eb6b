import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { ConfigError } from "@atrium/spec";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EMBEDDING_SPEC_FORMS, resolveEmbedding } from "./resolve-embedding.js";

interface Seen {
  path: string;
  authorization: string | undefined;
  model: string;
  input: string[];
}

/**
 * A loopback server speaking the OpenAI embeddings API (the part that can't be real offline):
 * each text's vector is [its length, 1], and every request is recorded.
 */
function embeddingsServer() {
  const seen: Seen[] = [];
  const server: Server = createServer((request, response) => {
    let body = "";
    request.on("data", (chunk) => (body += chunk));
    request.on("end", () => {
      const { model, input } = JSON.parse(body) as { model: string; input: string[] };
      seen.push({ path: request.url ?? "", authorization: request.headers.authorization, model, input });
      response.setHeader("content-type", "application/json");
      response.end(
        JSON.stringify({
          object: "list",
          model,
          data: input.map((text, index) => ({ object: "embedding", index, embedding: [text.length, 1] })),
          usage: { prompt_tokens: input.length, total_tokens: input.length },
        }),
      );
    });
  });
  return { server, seen };
}

describe("resolveEmbedding", () => {
  const { server, seen } = embeddingsServer();
  let base: string;
  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  });
  afterAll(async () => new Promise<void>((resolve) => server.close(() => resolve())));

  it("resolves hashing, and the ids hashing collections record", async () => {
    expect(resolveEmbedding("hashing").id).toBe("hashing-v1-384");
    expect(resolveEmbedding(" hashing-v1-64 ").id).toBe("hashing-v1-64");
    const [vector] = await resolveEmbedding("hashing-v1-64").generate(["a"]);
    expect(vector).toHaveLength(64);
    expect(() => resolveEmbedding("hashing-v1-3")).toThrow("dimensions must be an integer from");
  });

  it("embeds through an OpenAI-compatible server; the id is the spec, so it resolves again", async () => {
    const spec = `openai-compatible:${base}/#test-embed`;
    const embedding = resolveEmbedding(spec, { OPENAI_COMPATIBLE_API_KEY: "k-1" });
    expect(embedding.id).toBe(spec);
    expect(seen).toEqual([]);
    expect(await embedding.generate(["ab", "abcd"])).toEqual([
      [2, 1],
      [4, 1],
    ]);
    expect(await embedding.generateForQueries?.(["x"])).toEqual([[1, 1]]);
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
    expect(await openai.generate(["abc"])).toEqual([[3, 1]]);
    expect(await ollama.generate(["abcde"])).toEqual([[5, 1]]);
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
