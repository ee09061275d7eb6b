import { ValidationError } from "@atrium/spec";
import { describe, expect, it } from "vitest";
import { loadLocomo } from "./locomo-format.js";
import { TINY_LOCOMO } from "./tiny-locomo.fixture.js";

describe("loadLocomo", () => {
  const [conversation] = loadLocomo(JSON.stringify(TINY_LOCOMO));

  it("reads speakers, sessions in order with their dates, and turns with image captions as text", () => {
    expect(conversation!.sampleId).toBe("tiny-1");
    expect(conversation!.speakers).toEqual(["Ana", "Ben"]);
    expect(
      conversation!.sessions.map(({ number, timestamp, turns }) => [number, timestamp, turns.length]),
    ).toEqual([
      [1, "2023-05-08T13:56:00.000Z", 3],
      [2, "2023-06-01T00:05:00.000Z", 2],
    ]);
    expect(conversation!.sessions[0]!.turns[2]).toEqual({
      turnId: "D1:3",
      speaker: "Ana",
      content: "A beagle. Here he is. [image: a photo of a small dog on a couch]",
    });
  });

  it("makes one drawer draft per turn, filed by sample and session, keeping the dia_id", () => {
    expect(conversation!.drafts).toHaveLength(5);
    expect(conversation!.drafts[3]).toEqual({
      content: "I ran my first marathon in Boston on Sunday.",
      wing: "tiny-1",
      room: "session-2",
      hall: "conversations",
      source: "tiny-1",
      position: 3,
      speaker: "Ben",
      turnId: "D2:1",
      sessionId: "tiny-1/session-2",
      timestamp: "2023-06-01T00:05:00.000Z",
    });
  });

  it("keeps evidence ids naming turns, splitting 'a; b' lists and ignoring ids that name none", () => {
    expect(conversation!.questions).toEqual([
      {
        question: "What breed is Ana's dog?",
        answer: "beagle",
        category: 1,
        evidence: ["D1:3"],
        evidenceTurns: ["D1:3"],
      },
      {
        question: "Where did Ben run a marathon?",
        answer: "2023",
        category: 2,
        evidence: ["D2:1; D1:2"],
        evidenceTurns: ["D2:1", "D1:2"],
      },
      {
        question: "What did Ana name her cat?",
        adversarialAnswer: "Biscuit",
        category: 5,
        evidence: ["D1:1", "D"],
        evidenceTurns: ["D1:1"],
      },
      {
        question: "What is Ben's favourite colour?",
        answer: "unknown",
        category: 4,
        evidence: [],
        evidenceTurns: [],
      },
    ]);
  });

  it("names every malformed field by its path", () => {
    const broken = structuredClone(TINY_LOCOMO);
    (broken[0]!.conversation.session_1[1] as { dia_id: unknown }).dia_id = 7;
    broken[0]!.conversation.session_2_date_time = "sometime";
    (broken[0]!.qa[0] as { evidence: unknown }).evidence = "D1:3";
    let error: unknown;
    try {
      loadLocomo(JSON.stringify(broken));
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).issues).toEqual([
      { path: [0, "conversation", "session_1", 1, "dia_id"], message: "must be a non-empty string" },
      {
        path: [0, "conversation", "session_2_date_time"],
        message: '"sometime" is not a time like "1:56 pm on 8 May, 2023"; fix the session\'s date_time field',
      },
      { path: [0, "qa", 0, "evidence"], message: "must be an array of turn id strings" },
    ]);
  });

  it("rejects text that is not a LoCoMo file with what to pass instead", () => {
    expect(() => loadLocomo("{")).toThrow(/^LoCoMo file: is not JSON \(.*\); pass LoCoMo's locomo10.json/);
    expect(() => loadLocomo('{"qa": []}')).toThrow(
      "LoCoMo file: must be a JSON array of samples ({ sample_id, conversation, qa })",
    );
    expect(() => loadLocomo('[{"sample_id": "x"}]')).toThrow("conversation: must be an object");
  });
});
