import { describe, expect, it } from "vitest";
import { vectorText } from "./vector-text.js";

describe("vectorText", () => {
  it("prefixes the speaker when there is one", () => {
    expect(vectorText({ content: "I love pottery.", wing: "w", room: "r", speaker: "Ana" })).toBe(
      "Ana: I love pottery.",
    );
    expect(vectorText({ content: "a note", wing: "w", room: "r" })).toBe("a note");
  });
});
