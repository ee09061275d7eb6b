import { AbortError, ConfigError, type Embedding, type EmbedOptions } from "@atrium/spec";
import { DEFAULT_CHROMA_LIMITS } from "../limits.js";
import { HASHING_DEFAULT_DIMENSIONS } from "../tuning.js";

export interface HashingEmbeddingOptions {
  /** Vector size; default 384. */
  dimensions?: number;
}

const WORD = /[\p{L}\p{N}_]+/gu;
const WORD_WEIGHT = 1;
const TRIGRAM_WEIGHT = 0.5;

/**
 * The offline default: feature hashing of lowercased words and character 3-grams (of each word
 * padded with spaces, so prefixes and suffixes count) into a fixed-size vector, with a hashed
 * sign so collisions cancel out instead of piling up, then L2-normalised. Deterministic, needs no
 * weights or network, and embeds megabytes per second — lexical similarity, not semantics.
 * An empty text (no letters or digits) maps to the unit vector e0.
 */
export function hashingEmbedding(options: HashingEmbeddingOptions = {}): Embedding {
  const dimensions = options.dimensions ?? HASHING_DEFAULT_DIMENSIONS;
  if (
    !Number.isInteger(dimensions) ||
    dimensions < DEFAULT_CHROMA_LIMITS.minHashingDimensions ||
    dimensions > DEFAULT_CHROMA_LIMITS.maxHashingDimensions
  ) {
    throw new ConfigError(
      `hashingEmbedding: dimensions must be an integer from ${DEFAULT_CHROMA_LIMITS.minHashingDimensions} to ${DEFAULT_CHROMA_LIMITS.maxHashingDimensions}, got ${dimensions}`,
    );
  }
  return {
    // Stored with collections: the id names the settings, so it never changes for them.
    id: `hashing-v1-${dimensions}`,
    dimensions,
    deterministic: true,
    embed: async (texts: readonly string[], { signal }: EmbedOptions = {}) => {
      if (signal?.aborted) throw new AbortError("hashing embedding aborted", { cause: signal.reason });
      return texts.map((text) => embedText(text, dimensions));
    },
  };
}

export function embedText(text: string, dimensions: number): number[] {
  const vector = new Float64Array(dimensions);
  const lower = text.slice(0, DEFAULT_CHROMA_LIMITS.maxHashingTextChars).toLowerCase();
  for (const match of lower.matchAll(WORD)) {
    const word = match[0];
    addFeature(vector, hashString(word, 0x9e3779b9), WORD_WEIGHT);
    const padded = ` ${word} `;
    for (let i = 0; i + 3 <= padded.length; i++) {
      addFeature(vector, hashString(padded.slice(i, i + 3), 0x85ebca6b), TRIGRAM_WEIGHT);
    }
  }
  let norm = 0;
  for (const value of vector) norm += value * value;
  if (norm === 0) {
    const unit = new Array<number>(dimensions).fill(0);
    unit[0] = 1;
    return unit;
  }
  const scale = 1 / Math.sqrt(norm);
  return Array.from(vector, (value) => value * scale);
}

function addFeature(vector: Float64Array, hash: number, weight: number): void {
  const index = hash % vector.length;
  // The top bit is independent of the low bits used for the index after mixing.
  vector[index] = (vector[index] ?? 0) + (hash & 0x80000000 ? -weight : weight);
}

/** FNV-1a over UTF-16 code units, seeded, finished with murmur3's avalanche; unsigned 32-bit. */
function hashString(text: string, seed: number): number {
  let hash = (0x811c9dc5 ^ seed) >>> 0;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  hash ^= hash >>> 16;
  hash = Math.imul(hash, 0x85ebca6b);
  hash ^= hash >>> 13;
  hash = Math.imul(hash, 0xc2b2ae35);
  hash ^= hash >>> 16;
  return hash >>> 0;
}
