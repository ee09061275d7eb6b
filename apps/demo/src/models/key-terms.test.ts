import { describe, expect, it } from "vitest";
import { keyTerms, stemOf } from "./key-terms.js";

describe("keyTerms", () => {
  it("drops function and question words, stems, and puts the longest first", () => {
    expect(keyTerms("How do I set up custom domains for my docs?", 5)).toEqual(["custom", "domain"]);
    expect(keyTerms("Which command starts a local preview?", 5)).toEqual([
      "command",
      "preview",
      "start",
      "local",
    ]);
  });

  it("keeps the question's order among equal lengths and stops at max", () => {
    expect(keyTerms("alpha gamma delta omega", 2)).toEqual(["alpha", "gamma"]);
  });

  it("gives nothing for a question without content words", () => {
    expect(keyTerms("How do I?", 5)).toEqual([]);
  });

  it("stems without going below four letters or touching -ss", () => {
    expect([
      stemOf("policies"),
      stemOf("deploying"),
      stemOf("uses"),
      stemOf("access"),
      stemOf("redirects"),
    ]).toEqual(["polic", "deploy", "uses", "access", "redirect"]);
  });
});
