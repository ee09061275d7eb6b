import type { Embedding } from "@atrium/spec";
import type { EmbeddingFunction } from "chromadb";

/**
 * A spec `Embedding` as chromadb's `EmbeddingFunction`, for collections that embed their own
 * documents and queries (`embeddingFunction:` of `createCollection` / `getCollection`). Atrium's
 * own stores pass vectors they computed instead; this is the one place chromadb's interface is
 * spoken. Cosine is the default space: every Atrium embedding is meant to be compared by angle.
 */
export function chromaEmbeddingFunction(embedding: Embedding): EmbeddingFunction {
  const generate = (texts: string[]) => embedding.embed(texts);
  return {
    name: embedding.id,
    generate,
    generateForQueries: generate,
    defaultSpace: () => "cosine",
    supportedSpaces: () => ["cosine", "l2", "ip"],
    getConfig: () => ({ id: embedding.id, dimensions: embedding.dimensions }),
  };
}
