import { ConfigError } from "./errors.js";

export interface EmbedOptions {
  /** Aborting stops the call; `embed` then rejects with `AbortError`. */
  signal?: AbortSignal;
}

/**
 * Turns many texts into vectors, one per text and in the same order. What ChromaFs and the
 * palace index with; `@atrium/chroma` adapts it to chromadb's `EmbeddingFunction`.
 *
 * - `id` names the function and its settings ("hashing-v1-384", "openai:text-embedding-3-small"):
 *   stores record it with their vectors, and the same id must mean the same vector space.
 * - `dimensions` is every vector's length. A remote model that only reveals it with its first
 *   answer leaves it `undefined` until then, and sets it after the first successful `embed`.
 * - `deterministic` is true when the same text always gives exactly the same vector (a local
 *   function); a remote model may drift in the last digits.
 * - `embed([])` resolves to `[]` without any work.
 */
export interface Embedding {
  readonly id: string;
  readonly dimensions: number | undefined;
  readonly deterministic?: boolean;
  embed(texts: readonly string[], options?: EmbedOptions): Promise<number[][]>;
}

/** Cosine similarity of two vectors of the same length (0 when either is all zeros). */
export function cosineSimilarity(a: readonly number[], b: readonly number[]): number {
  if (a.length !== b.length) {
    throw new ConfigError(
      `cosineSimilarity: the vectors have ${a.length} and ${b.length} numbers; compare vectors of one embedding`,
    );
  }
  let dot = 0;
  let normA = 0;
  let normB = 0;
  for (let i = 0; i < a.length; i++) {
    const x = a[i] as number;
    const y = b[i] as number;
    dot += x * y;
    normA += x * x;
    normB += y * y;
  }
  return normA === 0 || normB === 0 ? 0 : dot / Math.sqrt(normA * normB);
}
