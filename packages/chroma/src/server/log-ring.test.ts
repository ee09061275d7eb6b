import { describe, expect, it } from "vitest";
import { LogRing } from "./log-ring.js";

describe("LogRing", () => {
  it("joins partial chunks into lines and strips colour codes", () => {
    const ring = new LogRing(10);
    ring.push("\u001b[38;5;069mhel");
    ring.push("lo\u001b[0m\r\nwor");
    expect(ring.snapshot()).toEqual(["hello", "wor"]);
    ring.push("ld\n");
    expect(ring.text()).toBe("hello\nworld");
  });

  it("keeps only the newest lines", () => {
    const ring = new LogRing(3);
    ring.push("1\n2\n3\n4\n5\n");
    expect(ring.snapshot()).toEqual(["3", "4", "5"]);
  });

  it("cuts an endless line instead of buffering it", () => {
    const ring = new LogRing(3);
    ring.push("x".repeat(5_000));
    const [line] = ring.snapshot();
    expect(line).toBe(`${"x".repeat(2_000)}…`);
  });

  it("keeps the printed order when an endless line follows complete ones", () => {
    const ring = new LogRing(3);
    ring.push(`first\nsecond\n${"z".repeat(2_500)}`);
    expect(ring.snapshot()).toEqual(["first", "second", `${"z".repeat(2_000)}…`]);
  });
});
