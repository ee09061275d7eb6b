import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { evaluateLocomo, runLocomoBench } from "./locomo-bench.js";
import { loadLocomo } from "./locomo-format.js";
import { plainBm25Search } from "./plain-bm25-search.js";
import { plainVectorSearch } from "./plain-vector-search.js";
import { TINY_LOCOMO } from "./tiny-locomo.fixture.js";

/** A second conversation that talks about nothing but marathons, and asks nothing. */
const RUNNER = {
  sample_id: "runner",
  conversation: {
    speaker_a: "Cy",
    speaker_b: "Di",
    session_1_date_time: "8:00 am on 3 June, 2023",
    session_1: Array.from({ length: 6 }, (_, i) => ({
      speaker: i % 2 ? "Di" : "Cy",
      dia_id: `D1:${i + 1}`,
      text: `Marathon ${i + 1}: a marathon in Boston, then a marathon run.`,
    })),
  },
  qa: [],
};

// By hand, plain BM25 (no stemming) on TINY_LOCOMO: "What breed is Ana's dog?" finds D1:3 (1);
// "Where did Ben run a marathon?" finds D2:1 but not D1:2 (0.5); "What did Ana name her cat?"
// cannot match "named" (0). Mean recall 0.5 at 5 and at 10.
describe("evaluateLocomo", () => {
  it("scores each scored question against its own conversation's store", async () => {
    const result = await evaluateLocomo(loadLocomo(JSON.stringify(TINY_LOCOMO)), plainBm25Search());
    expect(result.bySample).toEqual({ "tiny-1": result.overall });
    expect(result.overall).toMatchObject({
      turn_recall_at_5: 0.5,
      turn_recall_at_10: 0.5,
      session_recall_any_at_5: 1,
      questions: 3,
    });
  });

  it("flat search over a shared store ranks another wing's turns too; scoped search does not", async () => {
    const conversations = loadLocomo(JSON.stringify([TINY_LOCOMO[0], RUNNER]));
    const scoped = await evaluateLocomo(conversations, plainBm25Search(), "scoped");
    const flat = await evaluateLocomo(conversations, plainBm25Search(), "flat");
    expect([scoped.overall.turn_recall_at_5, scoped.overall.questions]).toEqual([0.5, 3]);
    // The six marathon turns of "runner" fill the marathon question's top 5.
    expect([flat.overall.turn_recall_at_5, flat.overall.turn_recall_at_10]).toEqual([1 / 3, 0.5]);
    expect(Object.keys(flat.bySample)).toEqual(["tiny-1"]);
  });
});

describe("runLocomoBench", () => {
  it("reports the first mode beside each baseline, and scoped beside flat", async () => {
    const file = join(mkdtempSync(join(tmpdir(), "locomo-")), "tiny.json");
    writeFileSync(file, JSON.stringify([TINY_LOCOMO[0], RUNNER]));
    const rows = await runLocomoBench(file, {
      search: { bm25: plainBm25Search(), vector: plainVectorSearch() },
      scoped: plainBm25Search(),
    });
    expect(rows).toEqual([
      {
        metric: "locomo.turn_recall_at_5",
        value: 0.5,
        unit: "fraction",
        baseline: "vector",
        baselineValue: 1,
        ratio: 0.5,
      },
      {
        metric: "locomo.turn_recall_at_10",
        value: 0.5,
        unit: "fraction",
        baseline: "vector",
        baselineValue: 1,
        ratio: 0.5,
      },
      {
        metric: "locomo.session_recall_any_at_5",
        value: 1,
        unit: "fraction",
        baseline: "vector",
        baselineValue: 1,
        ratio: 1,
      },
      {
        metric: "locomo.tokens_at_10",
        value: 29,
        unit: "tokens",
        baseline: "vector",
        baselineValue: 59,
        ratio: 29 / 59,
      },
      { metric: "locomo.questions", value: 3, unit: "questions" },
      {
        metric: "locomo.scoped_turn_recall_at_10",
        value: 0.5,
        unit: "fraction",
        baseline: "flat",
        baselineValue: 0.5,
        ratio: 1,
      },
      { metric: "locomo.flat_turn_recall_at_10", value: 0.5, unit: "fraction" },
    ]);
  });

  it("needs at least one search mode", async () => {
    const file = join(mkdtempSync(join(tmpdir(), "locomo-")), "tiny.json");
    writeFileSync(file, JSON.stringify(TINY_LOCOMO));
    await expect(runLocomoBench(file, { search: {} })).rejects.toThrow(
      "runLocomoBench: options.search names no search mode; pass at least one",
    );
  });
});
