import { describe, expect, it } from "vitest";
import { ENGLISH_STOP_WORDS, queryTerms, tokenize } from "./tokenize.js";

describe("tokenize", () => {
  it("lower-cases unicode words, keeping accents, combining marks, digits and _", () => {
    expect(tokenize("Hello, Wörld! naïve_café v2 e\u0301te\u0301")).toEqual([
      "hello",
      "wörld",
      "naïve_café",
      "v2",
      "e\u0301te\u0301",
    ]);
  });

  it("splits ideograph and kana runs into overlapping bigrams, and mixed words at the script change", () => {
    expect(tokenize("配置自定义域名")).toEqual(["配置", "置自", "自定", "定义", "义域", "域名"]);
    expect(tokenize("API文档 カタカナー 中")).toEqual(["api", "文档", "カタ", "タカ", "カナ", "ナー", "中"]);
  });

  it("drops short non-CJK words when asked, never a lone ideograph", () => {
    expect(tokenize("a bc 中 d", { minLength: 2 })).toEqual(["bc", "中"]);
  });

  it("returns no words for text without letters or digits", () => {
    expect(tokenize("  ... !! --- ")).toEqual([]);
  });
});

describe("queryTerms", () => {
  it("keeps distinct words of two letters or more, stop words dropped", () => {
    expect(queryTerms("How do I configure a custom domain? Custom DOMAIN!")).toEqual([
      "configure",
      "custom",
      "domain",
    ]);
  });

  it("keeps stop words when nothing else remains", () => {
    expect(queryTerms("the a of")).toEqual(["the", "of"]);
  });

  it("takes custom stop words and caps the number of terms", () => {
    expect(queryTerms("one two three four", { stopWords: new Set(["two"]), maxTerms: 2 })).toEqual([
      "one",
      "three",
    ]);
    expect(ENGLISH_STOP_WORDS.has("the")).toBe(true);
  });
});
