import { describe, expect, it } from "vitest";
import { exportFixture } from "../../test/export-fixture.js";
import { parseChatGptExport } from "./chatgpt.js";

describe("parseChatGptExport", () => {
  const parsed = parseChatGptExport(JSON.parse(exportFixture("chatgpt/conversations.json")));

  it("follows the branch to current_node, leaving out system, tool and hidden messages and image parts", () => {
    expect(parsed.conversations[0]).toEqual({
      id: "6632a1b0-1111-4000-8000-000000000001",
      title: "Marathon training plan",
      messages: [
        {
          turnId: "n-2",
          speaker: "user",
          role: "user",
          text: "I want to run my first marathon in October. How many weeks of training do I need?",
          timestamp: "2024-05-01T08:00:00.500Z",
        },
        {
          turnId: "n-5b",
          speaker: "assistant",
          role: "assistant",
          text: "Plan for 16 to 20 weeks if you already run three times a week.\n\nBuild the long run by about 10% a week and taper for the last three weeks.",
          timestamp: "2024-05-01T08:00:30.000Z",
        },
      ],
    });
    expect(parsed.problems).toEqual([]);
  });

  it("takes the newest branch when there is no current_node", () => {
    expect(parsed.conversations[1]!.messages.map((message) => [message.turnId, message.text])).toEqual([
      ["b", "Which houseplants survive a dark apartment?"],
      ["c2", "Snake plants, ZZ plants and pothos all cope with little light."],
    ]);
  });

  it("reports a cyclic tree instead of looping", () => {
    const cyclic = {
      id: "loop",
      current_node: "a",
      mapping: { a: { id: "a", parent: "b", message: null }, b: { id: "b", parent: "a", message: null } },
    };
    expect(parseChatGptExport([cyclic]).problems).toEqual([
      { position: "$[0].mapping", message: 'the message tree has a cycle at node "a"; skipped' },
    ]);
  });
});
