import { mkdtempSync, readdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { type PalaceLocomoProgress, runPalaceLocomo } from "./locomo-palace.js";
import { TINY_LOCOMO } from "./tiny-locomo.fixture.js";

/**
 * A second conversation asking nothing, whose twelve turns each hold every content word of
 * TINY_LOCOMO's three scored questions ("Ben", "ran"/"run", "marathon", "Ana", "dog", "breed",
 * "name", "cat"): searched across the whole palace they fill every question's top 10.
 */
const DISTRACTOR = {
  sample_id: "distractor",
  conversation: {
    speaker_a: "Cy",
    speaker_b: "Di",
    session_1_date_time: "8:00 am on 3 June, 2023",
    session_1: Array.from({ length: 12 }, (_, i) => ({
      speaker: i % 2 ? "Di" : "Cy",
      dia_id: `D1:${i + 1}`,
      text: `Ben ran marathon ${i + 1} in Boston with Ana's dog; what breed did Ana name her cat?`,
    })),
  },
  qa: [],
};

const row = (metric: string, value: number, unit: string, baseline?: string, baselineValue?: number) =>
  baseline === undefined
    ? { metric, value, unit }
    : {
        metric,
        value,
        unit,
        baseline,
        baselineValue,
        ratio: (baselineValue as number) === 0 ? 0 : value / (baselineValue as number),
      };

describe("runPalaceLocomo", () => {
  it("scores real palaces beside their legs and the plain baselines, and scoped beside flat", async () => {
    const dir = mkdtempSync(join(tmpdir(), "locomo-palace-"));
    const file = join(dir, "tiny.json");
    writeFileSync(file, JSON.stringify([TINY_LOCOMO[0], DISTRACTOR]));
    const progress: PalaceLocomoProgress[] = [];
    const rows = await runPalaceLocomo(file, {
      scoped: true,
      workDir: join(dir, "work"),
      onProgress: (event) => progress.push(event.phase === "mine" ? { ...event, ms: 0 } : event),
    });

    // In its own palace each question finds all its evidence: the palace's lexical index has
    // porter stemming ("named" for "name") and indexes each turn with its neighbours (D1:2,
    // "What breed is Biscuit?", for the dog question's D1:3). Plain BM25 finds D1:3 and D2:1
    // only (0.5, see locomo-bench.test.ts); its top 10 holds 29 tokens, the palace's 59: all
    // five turns, since the vector leg ranks every drawer and fusion keeps them.
    expect(rows).toEqual([
      row("locomo.turn_recall_at_5", 1, "fraction", "bm25", 1),
      row("locomo.turn_recall_at_5", 1, "fraction", "vector", 1),
      row("locomo.turn_recall_at_5", 1, "fraction", "plain-bm25", 0.5),
      row("locomo.turn_recall_at_5", 1, "fraction", "plain-vector", 1),
      row("locomo.turn_recall_at_10", 1, "fraction", "bm25", 1),
      row("locomo.turn_recall_at_10", 1, "fraction", "vector", 1),
      row("locomo.turn_recall_at_10", 1, "fraction", "plain-bm25", 0.5),
      row("locomo.turn_recall_at_10", 1, "fraction", "plain-vector", 1),
      row("locomo.session_recall_any_at_5", 1, "fraction", "bm25", 1),
      row("locomo.session_recall_any_at_5", 1, "fraction", "vector", 1),
      row("locomo.session_recall_any_at_5", 1, "fraction", "plain-bm25", 1),
      row("locomo.session_recall_any_at_5", 1, "fraction", "plain-vector", 1),
      row("locomo.tokens_at_10", 59, "tokens", "bm25", 49),
      row("locomo.tokens_at_10", 59, "tokens", "vector", 59),
      row("locomo.tokens_at_10", 59, "tokens", "plain-bm25", 29),
      row("locomo.tokens_at_10", 59, "tokens", "plain-vector", 59),
      row("locomo.questions", 3, "questions"),
      // In the shared palace the twelve distractor turns outrank tiny-1's everywhere but inside its wing.
      row("locomo.scoped_turn_recall_at_10", 1, "fraction", "flat", 0),
      row("locomo.flat_turn_recall_at_10", 0, "fraction"),
    ]);

    const searched = (mode: string) =>
      [1, 2, 3].map((done) => ({ phase: "search", mode, done, total: 3 }) as const);
    expect(progress).toEqual([
      { phase: "mine", palace: "tiny-1", drawers: 5, ms: 0 },
      ...searched("hybrid"),
      // The distractor's palace is mined when the first mode reaches it; it has no questions.
      { phase: "mine", palace: "distractor", drawers: 12, ms: 0 },
      ...searched("bm25"),
      ...searched("vector"),
      ...searched("plain-bm25"),
      ...searched("plain-vector"),
      { phase: "mine", palace: "all", drawers: 17, ms: 0 },
      ...searched("scoped"),
      ...searched("flat"),
    ]);

    // A given workDir keeps the run's palaces (one per conversation, one shared) and their Chroma data.
    const [run] = readdirSync(join(dir, "work"));
    expect(readdirSync(join(dir, "work", run as string)).sort()).toEqual([
      "chroma",
      "palace-0",
      "palace-1",
      "palace-2",
    ]);
  });

  it("without scoped, measures the per-conversation modes only, in a temporary dir it removes", async () => {
    const dir = mkdtempSync(join(tmpdir(), "locomo-palace-"));
    const file = join(dir, "tiny.json");
    writeFileSync(file, JSON.stringify(TINY_LOCOMO));
    // os.tmpdir() follows TMPDIR, so the run's temporary dir lands in one this test can watch.
    const scratch = mkdtempSync(join(tmpdir(), "locomo-palace-tmp-"));
    const saved = process.env.TMPDIR;
    process.env.TMPDIR = scratch;
    let rows: Awaited<ReturnType<typeof runPalaceLocomo>>;
    try {
      rows = await runPalaceLocomo(file);
    } finally {
      if (saved === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = saved;
    }
    expect(rows.map((entry) => entry.metric).filter((metric) => metric.includes("scoped"))).toEqual([]);
    expect(rows.at(-1)).toEqual({ metric: "locomo.questions", value: 3, unit: "questions" });
    expect(readdirSync(scratch)).toEqual([]);
  });

  it("names a file that is not LoCoMo's format", async () => {
    const file = join(mkdtempSync(join(tmpdir(), "locomo-palace-")), "bad.json");
    writeFileSync(file, JSON.stringify({ not: "an array" }));
    await expect(runPalaceLocomo(file)).rejects.toThrow(
      "must be a JSON array of samples ({ sample_id, conversation, qa })",
    );
  });
});
