import { describe, expect, it } from "vitest";
import type { SessionTranscript } from "../assistant/memory-seam.js";
import { transcriptDrafts } from "./session-transcript.js";

const transcript: SessionTranscript = {
  sessionId: "s1",
  user: { id: "alice" },
  question: "What do I prefer?",
  askedAt: "2026-12-01T10:00:00.000Z",
  steps: [
    {
      step: 1,
      text: "Thought: recall.\n```js\nawait recall({ query: 'prefer' })\n```",
      at: "2026-12-01T10:00:01.000Z",
    },
    { step: 2, text: "", at: "2026-12-01T10:00:02.000Z" },
  ],
  answer: 'You told me: "I prefer TypeScript examples."',
  answeredAt: "2026-12-01T10:00:03.000Z",
  sources: ["/a.mdx", "/b.md"],
};

describe("transcriptDrafts", () => {
  it("files each turn verbatim with its session, turn id, speaker, time and position", () => {
    expect(transcriptDrafts(transcript, "alice", 1000)).toEqual([
      {
        content: "What do I prefer?",
        wing: "alice",
        room: "sessions",
        hall: "conversations",
        source: "atrium-demo:s1",
        position: 0,
        speaker: "alice",
        turnId: "s1:q",
        sessionId: "s1",
        timestamp: "2026-12-01T10:00:00.000Z",
      },
      {
        content: "Thought: recall.\n```js\nawait recall({ query: 'prefer' })\n```",
        wing: "alice",
        room: "sessions",
        hall: "conversations",
        source: "atrium-demo:s1",
        position: 1,
        speaker: "assistant",
        turnId: "s1:s1",
        sessionId: "s1",
        timestamp: "2026-12-01T10:00:01.000Z",
      },
      {
        content: 'You told me: "I prefer TypeScript examples."',
        wing: "alice",
        room: "sessions",
        hall: "conversations",
        source: "atrium-demo:s1",
        position: 2,
        speaker: "assistant",
        turnId: "s1:a",
        sessionId: "s1",
        timestamp: "2026-12-01T10:00:03.000Z",
        metadata: { sources: "/a.mdx\n/b.md" },
      },
    ]);
  });

  it("splits a turn longer than the drawer limit into parts that join back to it", () => {
    const drafts = transcriptDrafts({ ...transcript, question: "x".repeat(25) }, "alice", 10);
    const parts = drafts.filter((draft) => draft.turnId?.startsWith("s1:q"));
    expect(parts.map((draft) => [draft.turnId, draft.content.length])).toEqual([
      ["s1:q#1", 10],
      ["s1:q#2", 10],
      ["s1:q#3", 5],
    ]);
    expect(parts.map((draft) => draft.content).join("")).toBe("x".repeat(25));
  });
});
