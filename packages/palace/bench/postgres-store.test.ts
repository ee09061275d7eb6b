import { describe, expect, it } from "vitest";
import { storeComparison } from "./postgres-store.js";

describe("storeComparison", () => {
  it("puts each mode's PostgreSQL figure beside the same mode's SQLite figure, baselines too, plain ones left out", () => {
    const sqlite = [
      {
        metric: "locomo.turn_recall_at_10",
        value: 0.8,
        unit: "fraction",
        baseline: "bm25",
        baselineValue: 0.75,
        ratio: 1,
      },
      {
        metric: "locomo.turn_recall_at_10",
        value: 0.8,
        unit: "fraction",
        baseline: "plain-bm25",
        baselineValue: 0.5,
        ratio: 1,
      },
      { metric: "locomo.tokens_at_10", value: 300, unit: "tokens" },
    ];
    const postgres = [
      {
        metric: "locomo.turn_recall_at_10",
        value: 0.79,
        unit: "fraction",
        baseline: "bm25",
        baselineValue: 0.75,
        ratio: 1,
      },
      {
        metric: "locomo.turn_recall_at_10",
        value: 0.79,
        unit: "fraction",
        baseline: "plain-bm25",
        baselineValue: 0.5,
        ratio: 1,
      },
      { metric: "locomo.tokens_at_10", value: 310, unit: "tokens" },
    ];
    expect(storeComparison(sqlite, postgres, (metric) => metric.includes("recall"))).toEqual([
      {
        metric: "postgres.locomo.turn_recall_at_10",
        value: 0.79,
        unit: "fraction",
        baseline: "sqlite",
        baselineValue: 0.8,
        ratio: 0.79 / 0.8,
      },
      {
        metric: "postgres.locomo.turn_recall_at_10.bm25",
        value: 0.75,
        unit: "fraction",
        baseline: "sqlite",
        baselineValue: 0.75,
        ratio: 1,
      },
    ]);
  });
});
