import { describe, expect, it } from "vitest";
import { exportFixture } from "../../test/export-fixture.js";
import { parseClaudeAiExport } from "./claude-ai.js";

describe("parseClaudeAiExport", () => {
  const parsed = parseClaudeAiExport(JSON.parse(exportFixture("claude-ai/conversations.json")));

  it("reads each conversation's text blocks, leaving out thinking and tool use", () => {
    expect(parsed.conversations[0]).toEqual({
      id: "c1a0e7f2-0001-4d6b-9a51-aa0000000001",
      title: "Sourdough starter schedule",
      messages: [
        {
          turnId: "m-0001",
          speaker: "user",
          role: "user",
          text: "My sourdough starter smells like nail polish remover after two days. Should I throw it out?",
          timestamp: "2024-05-02T08:14:00.000Z",
        },
        {
          turnId: "m-0002",
          speaker: "assistant",
          role: "assistant",
          text: "No need to throw it out. That acetone smell means the yeast is hungry.\n\nFeed it twice a day at a 1:1:1 ratio of starter, flour and water for a few days and the smell fades.",
          timestamp: "2024-05-02T08:14:30.000Z",
        },
        {
          turnId: "m-0003",
          speaker: "user",
          role: "user",
          text: "Great, I'll bake the loaf on Saturday then.",
          timestamp: "2024-05-02T08:19:00.000Z",
        },
      ],
    });
  });

  it("falls back to `text` without content blocks, and drops an empty title", () => {
    const second = parsed.conversations[1]!;
    expect(second.title).toBeUndefined();
    expect(second.messages.map((message) => message.turnId)).toEqual(["m-0101", "m-0102"]);
  });

  it("names what it skipped by JSON path", () => {
    expect(parsed.problems).toEqual([
      {
        position: "$[1].chat_messages[2]",
        message: 'unknown sender "system" (expected "human" or "assistant"); skipped',
      },
      { position: "$[2]", message: 'not a conversation (no "chat_messages" array); skipped' },
    ]);
  });

  it("accepts a single conversation object and refuses other shapes", () => {
    const single = parseClaudeAiExport({ uuid: "one", chat_messages: [{ sender: "human", text: "hi" }] });
    expect(single.conversations).toEqual([
      { id: "one", messages: [{ turnId: "one:0", speaker: "user", role: "user", text: "hi" }] },
    ]);
    expect(() => parseClaudeAiExport({ conversations: [] })).toThrow(
      '$: expected an array of conversations with "chat_messages", got an object',
    );
  });
});
