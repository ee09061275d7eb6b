import { countTokens } from "gpt-tokenizer";
import { describe, expect, it } from "vitest";
import { loadLocomo } from "./locomo-format.js";
import { isScoredQuestion, type LocomoHit, scoreLocomo, summarizeLocomo } from "./locomo-score.js";
import { TINY_LOCOMO } from "./tiny-locomo.fixture.js";

const conversation = loadLocomo(JSON.stringify(TINY_LOCOMO))[0]!;
const marathon = conversation.questions[1]!; // evidence D2:1 and D1:2
const hit = (turnId: string, wing = "tiny-1"): LocomoHit => ({ wing, turnId, content: `turn ${turnId}` });

describe("scoreLocomo", () => {
  it("counts the evidence turns in the top 5 and top 10, and the sessions of the top hits", () => {
    const hits = ["D2:2", "D1:1", "D1:2", "D1:3", "D9:1", "D9:2", "D2:1"].map((id) => hit(id));
    expect(scoreLocomo(conversation, marathon, hits)).toEqual({
      turnRecallAt5: 0.5,
      turnRecallAt10: 1,
      sessionRecallAnyAt5: 1,
      tokensAt10: hits.reduce((sum, { content }) => sum + countTokens(content), 0),
    });
    expect(countTokens("turn D2:2")).toBe(5);
  });

  it("never credits a hit from another wing, even with the same turn id", () => {
    const hits = [hit("D2:1", "other"), hit("D1:2", "other"), hit("D1:1")];
    expect(scoreLocomo(conversation, marathon, hits)).toMatchObject({
      turnRecallAt5: 0,
      turnRecallAt10: 0,
      sessionRecallAnyAt5: 1,
    });
  });

  it("looks for an evidence session among the first five distinct sessions only", () => {
    // Sessions in order: tiny-1 session 2, four other wings, then tiny-1 session 1 (sixth).
    const crowded = [
      hit("D2:2"),
      ...["a", "b", "c", "d"].map((wing) => hit("D1:3", wing)),
      hit("D2:1"),
      hit("D1:3"),
    ];
    expect(scoreLocomo(conversation, conversation.questions[0]!, crowded).sessionRecallAnyAt5).toBe(0);
    expect(scoreLocomo(conversation, marathon, crowded).sessionRecallAnyAt5).toBe(1);
    expect(scoreLocomo(conversation, marathon, []).sessionRecallAnyAt5).toBe(0);
  });

  it("refuses a question with no evidence turn, which the evaluation skips", () => {
    const unscored = conversation.questions[3]!;
    expect(isScoredQuestion(unscored)).toBe(false);
    expect(() => scoreLocomo(conversation, unscored, [])).toThrow(
      `scoreLocomo: "What is Ben's favourite colour?" has no evidence id naming a turn of tiny-1; skip it with isScoredQuestion`,
    );
  });
});

describe("summarizeLocomo", () => {
  it("averages the recalls and takes the median of the token counts", () => {
    const score = (recall: number, session: number, tokens: number) => ({
      turnRecallAt5: recall / 2,
      turnRecallAt10: recall,
      sessionRecallAnyAt5: session,
      tokensAt10: tokens,
    });
    expect(
      summarizeLocomo([score(1, 1, 300), score(0.5, 0, 100), score(0, 1, 250), score(0.5, 1, 120)]),
    ).toEqual({
      turn_recall_at_5: 0.25,
      turn_recall_at_10: 0.5,
      session_recall_any_at_5: 0.75,
      tokens_at_10: 185,
      questions: 4,
    });
    expect(() => summarizeLocomo([])).toThrow("summarizeLocomo: no scored questions");
  });
});
