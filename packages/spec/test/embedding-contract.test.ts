import { describe, expect, it } from "vitest";
import type { EmbedOptions } from "../src/index.js";
import { describeContract, embeddingContract } from "../src/testing/index.js";
import { failingCases } from "./failing-cases.js";
import { ReferenceEmbedding } from "./reference-embedding.js";

// The suite passes on a correct embedding...
describeContract(embeddingContract(async () => new ReferenceEmbedding()));

// ...and each broken one fails exactly the cases that check what it broke.
/** Mulberry32: pseudo-random, but the same sequence every run, so the expected failures hold. */
let state = 0x9e3779b9;
function nextRandom(): number {
  state = (state + 0x6d2b79f5) | 0;
  let t = Math.imul(state ^ (state >>> 15), 1 | state);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}

/** Gives every text a fresh random vector, whatever it says. */
class RandomEmbedding extends ReferenceEmbedding {
  protected override vector(): number[] {
    return Array.from({ length: 64 }, () => nextRandom() - 0.5);
  }
}

/** Sorts the texts before embedding them, losing their order. */
class SortingEmbedding extends ReferenceEmbedding {
  override embed(texts: readonly string[], options?: EmbedOptions) {
    return super.embed([...texts].sort(), options);
  }
}

/** Promises 64 numbers per vector, gives 63. */
class ShortEmbedding extends ReferenceEmbedding {
  protected override vector(text: string): number[] {
    return super.vector(text).slice(1);
  }
}

/** Embeds an empty batch as one empty text. */
class EagerEmbedding extends ReferenceEmbedding {
  override embed(texts: readonly string[], options?: EmbedOptions) {
    return super.embed(texts.length === 0 ? [""] : texts, options);
  }
}

/** Ignores its abort signal. */
class DeafEmbedding extends ReferenceEmbedding {
  override embed(texts: readonly string[]) {
    return super.embed(texts);
  }
}

let instances = 0;
/** A new id for every instance, although the settings are the same. */
class UnstableIdEmbedding extends ReferenceEmbedding {
  override readonly id = `reference-${instances++}`;
}

describe("the Embedding contract fails broken embeddings", () => {
  const broken = (make: () => ReferenceEmbedding) => failingCases(embeddingContract(async () => make()));

  it("an embedding with random vectors", async () => {
    expect(await broken(() => new RandomEmbedding())).toEqual([
      "one vector per text, in the order given",
      "the same text gives the same vector",
      "texts about the same thing are closer than unrelated ones (cosine)",
    ]);
  });

  it("an embedding that reorders a batch", async () => {
    expect(await broken(() => new SortingEmbedding())).toEqual([
      "one vector per text, in the order given",
      "texts about the same thing are closer than unrelated ones (cosine)",
    ]);
  });

  it("an embedding whose vectors are shorter than its dimensions", async () => {
    expect(await broken(() => new ShortEmbedding())).toEqual([
      "every vector has `dimensions` finite numbers",
    ]);
  });

  it("an embedding that returns a vector for no texts", async () => {
    expect(await broken(() => new EagerEmbedding())).toEqual(["embedding no texts returns []"]);
  });

  it("an embedding that ignores aborts", async () => {
    expect(await broken(() => new DeafEmbedding())).toEqual(["an aborted signal rejects with AbortError"]);
  });

  it("an embedding whose id changes between instances", async () => {
    expect(await broken(() => new UnstableIdEmbedding())).toEqual([
      "the id is a non-empty string, the same for the same settings",
    ]);
  });
});
