import { describe, expect, it } from "vitest";
import { stemEnglish, stemNeedle } from "./english-stem.js";

describe("stemEnglish", () => {
  it("folds English plurals to their singular", () => {
    const words = ["images", "pdfs", "policies", "addresses", "pages", "keys", "visitors", "domains"];
    expect(words.map(stemEnglish)).toEqual([
      "image",
      "pdf",
      "policy",
      "address",
      "page",
      "key",
      "visitor",
      "domain",
    ]);
  });

  it("folds the regular verb endings -ing, -ed and a final -e to one stem, undoubling a consonant", () => {
    const words = ["authenticating", "authenticated", "authenticate", "settings", "embedded", "configures"];
    expect(words.map(stemEnglish)).toEqual([
      "authenticat",
      "authenticat",
      "authenticat",
      "set",
      "embed",
      "configur",
    ]);
  });

  it("leaves short words and double l, s, z alone", () => {
    const words = ["string", "used", "note", "thing", "install", "installing", "images", "pages"];
    expect(words.map(stemEnglish)).toEqual([
      "string",
      "used",
      "note",
      "thing",
      "install",
      "install",
      "image",
      "page",
    ]);
  });

  it("keeps words that only look plural, short words and anything not plain ASCII letters", () => {
    const words = ["status", "access", "analysis", "its", "was", "series2", "días", "配置", "image", "plays"];
    expect(words.map(stemEnglish)).toEqual([
      "status",
      "access",
      "analysis",
      "its",
      "was",
      "series2",
      "días",
      "配置",
      "image",
      "play",
    ]);
  });

  it("gives a needle that every form of the word holds", () => {
    expect(stemNeedle("policy")).toBe("polic");
    expect(stemNeedle("image")).toBe("image");
    expect(stemNeedle("key")).toBe("key");
    expect(stemNeedle("配置")).toBe("配置");
    for (const word of ["policy", "policies", "image", "images", "setting", "authenticated", "embedding"])
      expect(word.includes(stemNeedle(stemEnglish(word)))).toBe(true);
  });
});
