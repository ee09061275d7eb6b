import { describe, expect, it } from "vitest";
import { boundOutput, OutputBuffer, outputCutNote } from "../src/index.js";

describe("output accounting", () => {
  it("keeps output within the limit as it is, and past it the halves with a note of what was dropped", () => {
    expect(boundOutput("hello\n", 10)).toBe("hello\n");
    expect(boundOutput("0123456789abcdef", 10)).toBe(`01234${outputCutNote(6)}bcdef`);
    expect(boundOutput("0123456789abcdef", 1)).toBe(`0${outputCutNote(15)}`);
  });

  it("adds what a sandbox dropped itself, and does not trust it to have kept within the limit", () => {
    // A sandbox that kept head "01234" and tail "vwxyz" of a longer text, and dropped 16.
    expect(boundOutput("01234vwxyz", 10, 16)).toBe(`01234${outputCutNote(16)}vwxyz`);
    expect(boundOutput("0123456789vwxyz", 10, 16)).toBe(`01234${outputCutNote(21)}vwxyz`);
  });

  it("a buffer written piece by piece gives what boundOutput gives for the whole text", () => {
    const text = Array.from({ length: 500 }, (_, i) => `line ${i}\n`).join("");
    for (const max of [1, 7, 100, 5_000, 20_000]) {
      const buffer = new OutputBuffer(max);
      for (let at = 0; at < text.length; at += 13) buffer.append(text.slice(at, at + 13));
      expect(buffer.printed).toBe(text.length);
      expect(buffer.toString()).toBe(boundOutput(text, max));
    }
  });
});
