import { AbortError, type Embedding, type EmbedOptions } from "../src/index.js";

/**
 * A correct `Embedding`, to prove the contract suite passes: lower-cased words hashed (FNV-1a)
 * into signed buckets, L2-normalised. Lexical, deterministic, 64 dimensions.
 */
export class ReferenceEmbedding implements Embedding {
  readonly id: string = "reference-words-64";
  readonly deterministic = true;
  readonly dimensions: number | undefined = 64;

  async embed(texts: readonly string[], options: EmbedOptions = {}): Promise<number[][]> {
    if (options.signal?.aborted) throw new AbortError();
    return texts.map((text) => this.vector(text));
  }

  protected vector(text: string): number[] {
    const vector = new Array<number>(64).fill(0);
    for (const word of text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []) {
      let hash = 0x811c9dc5;
      for (const char of word) hash = Math.imul(hash ^ (char.codePointAt(0) ?? 0), 0x01000193) >>> 0;
      vector[hash % 64] = (vector[hash % 64] ?? 0) + (hash & 0x100 ? 1 : -1);
    }
    const norm = Math.hypot(...vector);
    return norm === 0 ? vector : vector.map((value) => value / norm);
  }
}
