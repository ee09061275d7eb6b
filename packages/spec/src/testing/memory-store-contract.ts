import assert from "node:assert/strict";
import { AtriumError, ClosedError } from "../errors.js";
import type { MemoryItem, MemoryStore } from "../memory-store.js";
import { type Contract, type ContractCase, withSubject } from "./contract.js";

const MEMORIES: MemoryItem[] = [
  {
    content: "Caroline adopted a grey rescue cat named Pixel in March.",
    scope: { wing: "caroline", room: "pets" },
  },
  {
    content: "Caroline is training for the Lisbon marathon in October.",
    scope: { wing: "caroline", room: "sports" },
  },
  {
    content: "Melanie paints watercolour landscapes every Sunday morning.",
    scope: { wing: "melanie", room: "hobbies" },
  },
  {
    content: "The atrium project pins vitest 4.1.12 because vitest 5 needs Node 22.",
    scope: { wing: "atrium", room: "toolchain" },
  },
];

/** Dated memories for the time-range cases, oldest first. */
const DATED: MemoryItem[] = [
  { content: "Kickoff meeting for the garden project.", timestamp: "2024-01-15T10:00:00Z" },
  { content: "The garden project bought seeds for spring.", timestamp: "2024-03-01T00:00:00Z" },
  { content: "The garden project harvested tomatoes.", timestamp: "2024-08-20T18:30:00+02:00" },
];

const expectValidation = (field: string) => (error: unknown) => {
  assert.ok(error instanceof AtriumError, `expected an AtriumError, got ${String(error)}`);
  assert.equal(error.code, "VALIDATION");
  assert.ok(error.message.includes(field), `the message should name ${field}: ${error.message}`);
  return true;
};

const expectClosed = (error: unknown) => {
  assert.ok(error instanceof ClosedError, `expected a ClosedError, got ${String(error)}`);
  assert.equal(error.code, "CLOSED");
  return true;
};

/**
 * The behaviour every `MemoryStore` promises (contract version 2): verbatim storage,
 * content-derived ids without duplicates, relevant recall, scoping by wing and room, limits,
 * time ranges, forgetting, a wake-up context that fits its token budget, and the `Closeable`
 * rule. The factory must return a new, empty store each time.
 */
export function memoryStoreContract(factory: () => Promise<MemoryStore>): Contract<MemoryStore> {
  const withStore = (body: (store: MemoryStore) => Promise<void>) => (make: () => Promise<MemoryStore>) =>
    withSubject(make, (store) => store.close(), body);

  const fill = async (store: MemoryStore) => {
    for (const item of MEMORIES) await store.remember(item);
  };

  const cases: ContractCase<MemoryStore>[] = [
    {
      name: "remembering the same content twice returns the same id and does not duplicate",
      run: withStore(async (store) => {
        const first = await store.remember(MEMORIES[0]!);
        const second = await store.remember(MEMORIES[0]!);
        assert.equal(first.created, true);
        assert.equal(second.created, false);
        assert.equal(second.id, first.id);
        const hits = await store.recall("rescue cat Pixel", { limit: 10 });
        assert.equal(hits.filter((hit) => hit.content === MEMORIES[0]!.content).length, 1);
      }),
    },
    {
      name: "different content gets a different id",
      run: withStore(async (store) => {
        const a = await store.remember(MEMORIES[0]!);
        const b = await store.remember(MEMORIES[1]!);
        assert.notEqual(a.id, b.id);
      }),
    },
    {
      name: "recall returns the most relevant memory first, verbatim",
      run: withStore(async (store) => {
        await fill(store);
        const hits = await store.recall("Which marathon is Caroline training for?");
        assert.ok(hits.length >= 1, "expected at least one hit");
        assert.equal(hits[0]!.content, MEMORIES[1]!.content);
        assert.deepEqual(hits[0]!.scope, MEMORIES[1]!.scope);
      }),
    },
    {
      name: "recall scores are sorted from best to worst",
      run: withStore(async (store) => {
        await fill(store);
        const hits = await store.recall("Caroline", { limit: 10 });
        for (let i = 1; i < hits.length; i++) {
          assert.ok(hits[i - 1]!.score >= hits[i]!.score, "scores must not increase");
        }
      }),
    },
    {
      name: "a wing scope never returns memories from another wing",
      run: withStore(async (store) => {
        await fill(store);
        const hits = await store.recall("paints watercolour landscapes Sunday", {
          scope: { wing: "caroline" },
          limit: 10,
        });
        for (const hit of hits) assert.equal(hit.scope.wing, "caroline");
        assert.ok(!hits.some((hit) => hit.content.includes("watercolour")), "leaked another wing");
      }),
    },
    {
      name: "a room scope narrows to that room",
      run: withStore(async (store) => {
        await fill(store);
        const hits = await store.recall("Caroline", { scope: { wing: "caroline", room: "pets" }, limit: 10 });
        assert.deepEqual(
          hits.map((hit) => hit.content),
          [MEMORIES[0]!.content],
        );
      }),
    },
    {
      name: "limit caps the number of hits",
      run: withStore(async (store) => {
        await fill(store);
        const hits = await store.recall("Caroline", { limit: 1 });
        assert.equal(hits.length, 1);
      }),
    },
    {
      name: "unicode content comes back byte for byte",
      run: withStore(async (store) => {
        const content = "会议改到周四 — café ☕ naïve façade 🚀";
        await store.remember({ content, scope: { wing: "unicode", room: "mixed" } });
        const hits = await store.recall("会议 周四 café", { scope: { wing: "unicode" } });
        assert.equal(hits[0]?.content, content);
      }),
    },
    {
      name: "empty content is rejected with a VALIDATION error",
      run: withStore(async (store) => {
        await assert.rejects(store.remember({ content: "   " }), (error: unknown) => {
          assert.ok(error instanceof AtriumError, "expected an AtriumError");
          assert.equal(error.code, "VALIDATION");
          return true;
        });
      }),
    },
    {
      name: "wake-up fits its token budget and is not empty once memories exist",
      run: withStore(async (store) => {
        await fill(store);
        for (const budget of [15, 120, 800]) {
          const text = await store.wakeUp({ budgetTokens: budget });
          assert.ok(text.trim().length > 0, `wake-up with budget ${budget} is empty`);
          const used = store.countTokens(text);
          assert.ok(used <= budget, `wake-up used ${used} tokens, budget ${budget}`);
        }
      }),
    },
    {
      name: "forget removes a memory and says whether it was there",
      run: withStore(async (store) => {
        await fill(store);
        const { id } = await store.remember(MEMORIES[1]!);
        assert.equal(await store.forget(id), true);
        const hits = await store.recall("Which marathon is Caroline training for?", { limit: 10 });
        assert.ok(!hits.some((hit) => hit.id === id), "a forgotten memory was recalled");
        assert.ok(
          hits.some((hit) => hit.content === MEMORIES[0]!.content),
          "forget removed too much",
        );
        assert.equal(await store.forget(id), false);
        assert.equal(await store.forget("no-such-id"), false);
        assert.equal((await store.remember(MEMORIES[1]!)).created, true);
      }),
    },
    {
      name: "recall hits carry the memory's timestamp",
      run: withStore(async (store) => {
        for (const item of DATED) await store.remember(item);
        const hits = await store.recall("garden project tomatoes", { limit: 10 });
        const harvest = hits.find((hit) => hit.content === DATED[2]!.content);
        assert.ok(harvest, "expected the dated memory among the hits");
        assert.equal(Date.parse(harvest.timestamp), Date.parse(DATED[2]!.timestamp!));
      }),
    },
    {
      name: "a time range keeps only memories inside it, both bounds inclusive",
      run: withStore(async (store) => {
        for (const item of DATED) await store.remember(item);
        const within = async (timeRange: { from?: string; to?: string }) =>
          (await store.recall("garden project", { timeRange, limit: 10 })).map((hit) => hit.content).sort();
        const contents = (indices: number[]) => indices.map((index) => DATED[index]!.content).sort();
        assert.deepEqual(await within({ from: "2024-03-01T00:00:00Z" }), contents([1, 2]));
        assert.deepEqual(await within({ to: "2024-03-01T00:00:00.000Z" }), contents([0, 1]));
        // The same instant as 18:30 at +02:00.
        assert.deepEqual(await within({ from: "2024-02-01", to: "2024-08-20T16:30:00Z" }), contents([1, 2]));
        assert.deepEqual(await within({ from: "2025-01-01" }), []);
      }),
    },
    {
      name: "a malformed or inverted time range is rejected with a VALIDATION error",
      run: withStore(async (store) => {
        await fill(store);
        await assert.rejects(
          store.recall("Caroline", { timeRange: { from: "last tuesday" } }),
          expectValidation("timeRange.from"),
        );
        await assert.rejects(
          store.recall("Caroline", { timeRange: { from: "2024-05-01", to: "2024-01-01" } }),
          expectValidation("timeRange"),
        );
      }),
    },
    {
      name: "close is idempotent and later calls reject with CLOSED",
      run: async (make) => {
        const store = await make();
        await fill(store);
        await store.close();
        await store.close();
        await assert.rejects(store.remember(MEMORIES[0]!), expectClosed);
        await assert.rejects(store.recall("Caroline"), expectClosed);
        await assert.rejects(store.forget("any"), expectClosed);
        await assert.rejects(store.wakeUp({ budgetTokens: 100 }), expectClosed);
      },
    },
  ];
  return { name: "MemoryStore contract", factory, cases };
}
