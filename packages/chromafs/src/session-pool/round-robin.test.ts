import { describe, expect, it } from "vitest";
import { RoundRobin } from "./round-robin.js";

describe("RoundRobin", () => {
  it("hands out the first key that can go, and a key rejoins at the back", () => {
    const line = new RoundRobin<string>();
    line.add("a");
    line.add("b");
    line.add("a"); // already waiting: keeps its place
    line.add("c");
    expect(line.take((key) => key !== "a")).toBe("b");
    line.add("b");
    expect(line.take(() => true)).toBe("a");
    line.remove("c");
    expect(line.size).toBe(1);
    expect(line.take(() => true)).toBe("b");
    expect(line.take(() => true)).toBeUndefined();
  });
});
