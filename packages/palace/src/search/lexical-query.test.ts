import { describe, expect, it } from "vitest";
import { lexicalMatchQuery } from "./lexical-query.js";

describe("lexicalMatchQuery", () => {
  it("ORs the distinct content words, dropping function words and one-letter words", () => {
    expect(lexicalMatchQuery("When did Caroline go to the LGBTQ support group?")).toBe(
      '"caroline" OR "go" OR "lgbtq" OR "support" OR "group"',
    );
    expect(lexicalMatchQuery("What is Gina's favourite style of dance, dance?")).toBe(
      '"gina" OR "favourite" OR "style" OR "dance"',
    );
  });

  it("keeps function words when the query has nothing else, and one-letter words when nothing longer", () => {
    expect(lexicalMatchQuery("Who was there?")).toBe('"who" OR "was" OR "there"');
    expect(lexicalMatchQuery("x y")).toBe('"x" OR "y"');
    expect(lexicalMatchQuery("?! --")).toBeUndefined();
  });

  it("never lets FTS5 syntax through", () => {
    expect(lexicalMatchQuery('content:"x" OR NEAR(a b) * ^start')).toBe('"content" OR "near" OR "start"');
  });
});
