import { describe, expect, it } from "vitest";
import { RRF_DEFAULT_K, reciprocalRankFusion } from "./rank-fusion.js";

describe("reciprocalRankFusion", () => {
  it("adds weight / (k + rank + 1) per list, best first", () => {
    const fused = reciprocalRankFusion(
      [
        ["a", "b", "a", "c"],
        ["c", "a"],
      ],
      { key: (id) => id, weights: [1, 2] },
    );
    expect(RRF_DEFAULT_K).toBe(60);
    expect(fused.map((entry) => [entry.key, entry.score])).toEqual([
      ["a", 1 / 61 + 2 / 62],
      ["c", 1 / 64 + 2 / 61],
      ["b", 1 / 62],
    ]);
    // A repeat inside a list counts once, at its first position, but still takes its place.
    expect(fused[0]?.occurrences.map(({ list, rank }) => [list, rank])).toEqual([
      [0, 0],
      [1, 1],
    ]);
    expect(fused[1]?.occurrences.map(({ list, rank, contribution }) => [list, rank, contribution])).toEqual([
      [0, 3, 1 / 64],
      [1, 0, 2 / 61],
    ]);
  });

  it("orders equal scores by key and honours k", () => {
    const fused = reciprocalRankFusion([["y"], ["x"]], { key: (item) => item, k: 0 });
    expect(fused.map((entry) => [entry.key, entry.score])).toEqual([
      ["x", 1],
      ["y", 1],
    ]);
  });

  it("fuses items by a key, keeping each list's item", () => {
    const fused = reciprocalRankFusion([[{ page: "/a", chunk: 2 }], [{ page: "/a", chunk: 5 }]], {
      key: (row) => row.page,
    });
    expect(fused).toHaveLength(1);
    expect(fused[0]?.occurrences.map((occurrence) => occurrence.item.chunk)).toEqual([2, 5]);
    expect(reciprocalRankFusion([], { key: String })).toEqual([]);
  });
});
