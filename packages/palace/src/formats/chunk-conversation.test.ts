import { describe, expect, it } from "vitest";
import { chunkConversation, exchanges } from "./chunk-conversation.js";
import type { Conversation, ConversationMessage } from "./conversation.js";

const message = (
  turnId: string,
  role: ConversationMessage["role"],
  text: string,
  speaker: string = role,
) => ({
  turnId,
  role,
  speaker,
  text,
});

const conversation: Conversation = {
  id: "c",
  messages: [
    message("t0", "assistant", "Welcome back."),
    message("t1", "user", "What is a good first houseplant?"),
    message("t2", "assistant", "A pothos: it forgives missed waterings."),
    message("t3", "user", "And for a dark room?"),
    message("t4", "assistant", "A snake plant."),
    message("t5", "assistant", "Or a ZZ plant."),
  ],
};

describe("chunkConversation", () => {
  it("turn: one drawer per message with its turn id, positions in order", () => {
    expect(
      chunkConversation(conversation, "turn", 1000).map((chunk) => [
        chunk.position,
        chunk.turnId,
        chunk.speaker,
        chunk.content,
      ]),
    ).toEqual([
      [0, "t0", "assistant", "Welcome back."],
      [1, "t1", "user", "What is a good first houseplant?"],
      [2, "t2", "assistant", "A pothos: it forgives missed waterings."],
      [3, "t3", "user", "And for a dark room?"],
      [4, "t4", "assistant", "A snake plant."],
      [5, "t5", "assistant", "Or a ZZ plant."],
    ]);
  });

  it("exchange: a user message with its replies; first turn id, all turn ids", () => {
    expect(chunkConversation(conversation, "exchange", 1000)).toEqual([
      {
        content: "assistant: Welcome back.",
        speaker: "assistant",
        turnId: "t0",
        turnIds: ["t0"],
        position: 0,
      },
      {
        content:
          "user: What is a good first houseplant?\n\nassistant: A pothos: it forgives missed waterings.",
        turnId: "t1",
        turnIds: ["t1", "t2"],
        position: 1,
      },
      {
        content: "user: And for a dark room?\n\nassistant: A snake plant.\n\nassistant: Or a ZZ plant.",
        turnId: "t3",
        turnIds: ["t3", "t4", "t5"],
        position: 2,
      },
    ]);
  });

  it("cuts a long message into parts that keep the turn id, never mid-word", () => {
    const long: Conversation = {
      id: "l",
      messages: [message("a", "user", "First sentence is here. Second sentence follows. Third one ends it.")],
    };
    expect(
      chunkConversation(long, "turn", 30).map((chunk) => [
        chunk.content,
        chunk.turnId,
        chunk.part,
        chunk.parts,
        chunk.position,
      ]),
    ).toEqual([
      ["First sentence is here.", "a", 1, 3, 0],
      ["Second sentence follows.", "a", 2, 3, 1],
      ["Third one ends it.", "a", 3, 3, 2],
    ]);
  });

  it("exchange: splits an exchange over the cap at message boundaries", () => {
    const chunks = chunkConversation(conversation, "exchange", 60);
    expect(chunks.map((chunk) => [chunk.turnIds, chunk.content])).toEqual([
      [["t0"], "assistant: Welcome back."],
      [["t1"], "user: What is a good first houseplant?"],
      [["t2"], "assistant: A pothos: it forgives missed waterings."],
      [["t3", "t4"], "user: And for a dark room?\n\nassistant: A snake plant."],
      [["t5"], "assistant: Or a ZZ plant."],
    ]);
    for (const chunk of chunks) expect(chunk.content.length).toBeLessThanOrEqual(60);
  });
});

describe("exchanges", () => {
  it("without a user role, starts an exchange at each message of whoever spoke first", () => {
    const people = [
      message("1", "other", "Hi!", "Ana"),
      message("2", "other", "Hey.", "Ben"),
      message("3", "other", "Lunch?", "Ana"),
      message("4", "other", "Sure.", "Ben"),
    ];
    expect(exchanges(people).map((group) => group.map((item) => item.turnId))).toEqual([
      ["1", "2"],
      ["3", "4"],
    ]);
  });
});
