import assert from "node:assert/strict";
import { cosineSimilarity, type Embedding } from "../embedding.js";
import { type Contract, type ContractCase, within } from "./contract.js";

export interface EmbeddingContractOptions {
  /** Deadline of one `embed` call (default 10 s): a remote model gets time, a hang does not. */
  timeoutMs?: number;
}

/** Texts in three topics; within a topic they share words and meaning, across topics neither. */
const SIMILAR: [string, string, string][] = [
  [
    "How do I configure a custom domain for my docs site?",
    "Configure the custom domain of your documentation site in the dashboard.",
    "Grandma's apple pie recipe needs cinnamon and butter.",
  ],
  [
    "The marathon runner trained every morning before the race.",
    "Every morning the runner trained for the marathon race.",
    "Quarterly tax filings are due at the end of the month.",
  ],
];

const BATCH = ["first: the red fox", "second: 会议改到周四", "third: café naïve façade", "fourth: 42"];

/** The same vector, exactly for a deterministic embedding, within float noise for a remote one. */
function assertSameVector(embedding: Embedding, actual: number[], expected: number[], what: string): void {
  if (embedding.deterministic) {
    assert.deepEqual(actual, expected, `${what}: a deterministic embedding gave a different vector`);
    return;
  }
  assert.equal(actual.length, expected.length, `${what}: vectors of different lengths`);
  const similarity = cosineSimilarity(actual, expected);
  assert.ok(similarity > 0.999, `${what}: cosine similarity ${similarity}, expected the same vector`);
}

/**
 * The behaviour every `Embedding` promises: one vector of `dimensions` finite numbers per text,
 * in order; `[]` for no texts; the same text the same vector; texts about the same thing closer
 * (cosine) than unrelated ones; a stable id; aborts reject with `AbortError`. The factory may
 * return the same embedding each time or a new one with the same settings.
 */
export function embeddingContract(
  factory: () => Promise<Embedding>,
  options: EmbeddingContractOptions = {},
): Contract<Embedding> {
  const timeoutMs = options.timeoutMs ?? 10_000;
  const embed = (embedding: Embedding, texts: string[], signal?: AbortSignal) =>
    within(timeoutMs, `embed of ${texts.length} texts`, embedding.embed(texts, signal ? { signal } : {}));

  const cases: ContractCase<Embedding>[] = [
    {
      name: "every vector has `dimensions` finite numbers",
      run: async (make) => {
        const embedding = await make();
        const vectors = await embed(embedding, ["hello world", "配置自定义域名", "", "  ... !!"]);
        assert.equal(vectors.length, 4);
        const { dimensions } = embedding;
        assert.ok(
          Number.isInteger(dimensions) && (dimensions as number) > 0,
          `dimensions should be a positive integer once a text was embedded, got ${dimensions}`,
        );
        for (const vector of vectors) {
          assert.equal(vector.length, dimensions);
          assert.ok(vector.every(Number.isFinite), "a vector holds a non-finite number");
        }
      },
    },
    {
      name: "one vector per text, in the order given",
      run: async (make) => {
        const embedding = await make();
        const batch = await embed(embedding, BATCH);
        assert.equal(batch.length, BATCH.length);
        for (const [index, text] of BATCH.entries()) {
          const [alone] = await embed(embedding, [text]);
          assertSameVector(embedding, batch[index]!, alone!, `text #${index} of the batch`);
        }
      },
    },
    {
      name: "embedding no texts returns []",
      run: async (make) => {
        assert.deepEqual(await embed(await make(), []), []);
      },
    },
    {
      name: "the same text gives the same vector",
      run: async (make) => {
        const embedding = await make();
        const text = "Memory palaces file verbatim drawers in wings and rooms.";
        const [first] = await embed(embedding, [text]);
        const [second] = await embed(await make(), [text]);
        assertSameVector(embedding, second!, first!, "a second embed");
      },
    },
    {
      name: "texts about the same thing are closer than unrelated ones (cosine)",
      run: async (make) => {
        const embedding = await make();
        for (const [anchor, near, far] of SIMILAR) {
          const [a, b, c] = await embed(embedding, [anchor, near, far]);
          const close = cosineSimilarity(a!, b!);
          const distant = cosineSimilarity(a!, c!);
          assert.ok(
            close > distant,
            `"${anchor}": similar ${close.toFixed(3)} ≤ unrelated ${distant.toFixed(3)}`,
          );
        }
      },
    },
    {
      name: "the id is a non-empty string, the same for the same settings",
      run: async (make) => {
        const [one, two] = [await make(), await make()];
        assert.equal(typeof one.id, "string");
        assert.ok(one.id.trim().length > 0, "the id is empty");
        assert.equal(two.id, one.id);
      },
    },
    {
      name: "an aborted signal rejects with AbortError",
      run: async (make) => {
        const embedding = await make();
        const controller = new AbortController();
        controller.abort();
        await assert.rejects(embed(embedding, ["never embedded"], controller.signal), (error: unknown) => {
          assert.ok(error instanceof Error, `expected an Error, got ${String(error)}`);
          assert.equal(error.name, "AbortError");
          return true;
        });
      },
    },
  ];
  return { name: "Embedding contract", factory, cases };
}
