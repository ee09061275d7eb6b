import { describe, expect, it } from "vitest";
import { functionWordsOf, parseRanking, parseWeights, rankCommands, regexQuote } from "./ranking.js";

describe("rankCommands", () => {
  it("greps each term at the start of a word, quoted for the shell and as a regular expression", () => {
    const commands = rankCommands("What's node.js?", ["node.js", "it's"]);
    expect(commands).toEqual({
      total: "find / -type f | wc -l",
      search: "search 'What'\\''s node.js?'",
      counts: [
        { term: "node.js", command: "grep -rciE -- '(^|[^[:alnum:]])node\\.js' / | grep -v ':0$'" },
        { term: "it's", command: "grep -rciE -- '(^|[^[:alnum:]])it'\\''s' / | grep -v ':0$'" },
      ],
      sizes: "wc -c",
      fields: "grep -H -m2 -E '^(title|description):'",
    });
    expect(regexQuote("a+b(c)[d]{e}|f^$*?.\\")).toBe("a\\+b\\(c\\)\\[d\\]\\{e\\}\\|f\\^\\$\\*\\?\\.\\\\");
  });
});

describe("reading the ranking step's output", () => {
  it("takes the weights and the ranked pages, best first", () => {
    const printed =
      'weights: custom=1.315 domain=1.577\nrank 12.500 /customize/custom-domain.mdx {"custom":13}\nrank 3.000 /a b.mdx {}\n';
    expect([...parseWeights(printed)]).toEqual([
      ["custom", 1.315],
      ["domain", 1.577],
    ]);
    expect(parseRanking(printed)).toEqual(["/customize/custom-domain.mdx", "/a b.mdx"]);
  });
});

describe("functionWordsOf", () => {
  it("finds the question's function words, the evidence of its language", () => {
    expect(functionWordsOf("How do I add a custom domain? How?")).toEqual(["how", "do", "i", "a"]);
    expect(functionWordsOf("Preview locally")).toEqual([]);
  });
});
