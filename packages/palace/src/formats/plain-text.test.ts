import { describe, expect, it } from "vitest";
import { exportFixture } from "../../test/export-fixture.js";
import { parsePlainTranscript, plainTextShape } from "./plain-text.js";

describe("parsePlainTranscript", () => {
  it("reads speaker-labelled lines with optional times; unlabelled lines continue a message", () => {
    const parsed = parsePlainTranscript(exportFixture("plain-text/book-club.txt"), "book-club.txt");
    expect(parsed.conversations[0]!.messages).toEqual([
      {
        turnId: "book-club.txt#L1",
        speaker: "Imani",
        role: "user",
        text: "Did you finish the novel for book club?",
        timestamp: "2024-02-10T18:30:00.000Z",
      },
      {
        turnId: "book-club.txt#L2",
        speaker: "Jonah",
        role: "other",
        text: "Almost. I'm stuck on the chapter where the lighthouse keeper leaves.\nIt felt slow.\n\nI think the author wanted the silence to feel heavy, though.",
        timestamp: "2024-02-10T18:31:00.000Z",
      },
      {
        turnId: "book-club.txt#L6",
        speaker: "Imani",
        role: "user",
        text: "That chapter is my favourite! Read it slowly, it pays off.",
        timestamp: "2024-02-10T18:33:00.000Z",
      },
      {
        turnId: "book-club.txt#L7",
        speaker: "Jonah",
        role: "other",
        text: "Fine, I'll finish it before Thursday.",
      },
    ]);
  });

  it("reads quoted lines as the user and the text after them as the reply", () => {
    const parsed = parsePlainTranscript(exportFixture("plain-text/assistant-notes.md"), "notes.md");
    expect(
      parsed.conversations[0]!.messages.map((message) => [message.turnId, message.role, message.text]),
    ).toEqual([
      ["notes.md#L1", "user", "How do I keep my laptop battery healthy?"],
      [
        "notes.md#L3",
        "assistant",
        "Avoid keeping it at 100% all day. Most laptops have a setting\nthat stops charging at 80%.",
      ],
      ["notes.md#L6", "user", "Does heat matter?"],
      ["notes.md#L8", "assistant", "Yes: heat wears a battery faster than charge cycles do."],
    ]);
  });

  it("knows User/Assistant labels by name", () => {
    const parsed = parsePlainTranscript(
      "Assistant: Hello.\nUser: Hi there.\nAssistant: How can I help?",
      "x",
    );
    expect(parsed.conversations[0]!.messages.map((message) => message.role)).toEqual([
      "assistant",
      "user",
      "assistant",
    ]);
  });

  it("takes prose with one stray label for no transcript, and reads it by paragraph when told to", () => {
    const text = exportFixture("plain-text/meeting-notes.txt");
    expect(plainTextShape(text)).toBeUndefined();
    expect(parsePlainTranscript(text, "m").conversations[0]!.messages).toEqual([
      { turnId: "m#L1", speaker: "unknown", role: "other", text: "Notes from the planning meeting." },
      { turnId: "m#L3", speaker: "unknown", role: "other", text: "Note: the venue is not confirmed yet." },
    ]);
  });

  it("refuses an empty file", () => {
    expect(() => parsePlainTranscript("  \n\n", "empty.txt")).toThrow(
      "line 1: no message in the transcript (the file is empty)",
    );
  });
});
