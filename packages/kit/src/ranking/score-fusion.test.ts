import { describe, expect, it } from "vitest";
import { scoreFusion } from "./score-fusion.js";

describe("scoreFusion", () => {
  it("min-max normalises each list, weights and sums per key, best first", () => {
    const fused = scoreFusion(
      [
        [
          { id: "a", score: 10 },
          { id: "b", score: 6 },
          { id: "c", score: 2 },
        ],
        [
          { id: "c", score: 0.9 },
          { id: "a", score: 0.5 },
        ],
      ],
      { key: (item) => item.id, score: (item) => item.score, weights: [1, 0.5] },
    );
    // b and c tie at 0.5: b's 6 is halfway between 2 and 10; c is 1 in the half-weighted list.
    expect(fused.map((entry) => [entry.key, entry.score])).toEqual([
      ["a", 1],
      ["b", 0.5],
      ["c", 0.5],
    ]);
    expect(fused[0]?.occurrences.map(({ list, rank, contribution }) => [list, rank, contribution])).toEqual([
      [0, 0, 1],
      [1, 1, 0],
    ]);
  });

  it("counts a key once per list, at its best-scored item", () => {
    const fused = scoreFusion(
      [
        [
          { id: "a", s: 1 },
          { id: "b", s: 3 },
          { id: "a", s: 5 },
        ],
      ],
      {
        key: (item) => item.id,
        score: (item) => item.s,
      },
    );
    expect(fused.map((entry) => [entry.key, entry.score, entry.occurrences[0]?.rank])).toEqual([
      ["a", 1, 2],
      ["b", 0.5, 1],
    ]);
  });

  it("gives every item 1 when a list's scores are all alike, and orders ties by key", () => {
    const fused = scoreFusion([[{ id: "y" }, { id: "x" }]], { key: (item) => item.id, score: () => 7 });
    expect(fused.map((entry) => [entry.key, entry.score])).toEqual([
      ["x", 1],
      ["y", 1],
    ]);
  });
});
