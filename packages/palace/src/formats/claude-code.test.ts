import { describe, expect, it } from "vitest";
import { exportFixture } from "../../test/export-fixture.js";
import { parseClaudeCodeTranscript } from "./claude-code.js";

describe("parseClaudeCodeTranscript", () => {
  it("keeps the words of both sides, merges one streamed reply, drops tools, meta, commands and sidechains", () => {
    const text = exportFixture("claude-code/5d3c1e2a-7b8f-4c1d-9e0a-123456789abc.jsonl");
    expect(parseClaudeCodeTranscript(text, "fallback")).toEqual({
      conversations: [
        {
          id: "5d3c1e2a-7b8f-4c1d-9e0a-123456789abc",
          title: "Fix flaky date parsing test",
          messages: [
            {
              turnId: "u-0002",
              speaker: "user",
              role: "user",
              text: "The test for parseOrderDate fails every Monday. Can you find out why?",
              timestamp: "2025-01-14T10:00:05.000Z",
            },
            {
              turnId: "u-0003",
              speaker: "assistant",
              role: "assistant",
              text: "I'll look at the test and the parser.",
              timestamp: "2025-01-14T10:00:09.000Z",
            },
            {
              turnId: "u-0007",
              speaker: "assistant",
              role: "assistant",
              text: "The test builds its expected date with the local time zone, but the parser works in UTC.\n\nOn Mondays before 01:00 local time the two fall on different days. I changed the test to build the date with Date.UTC.",
              timestamp: "2025-01-14T10:00:20.000Z",
            },
            {
              turnId: "u-0009",
              speaker: "user",
              role: "user",
              text: "Thanks, that fixed it.",
              timestamp: "2025-01-14T10:02:00.000Z",
            },
          ],
        },
      ],
      problems: [],
    });
  });

  it("reads the lines before a cut-off one and names the broken line", () => {
    const parsed = parseClaudeCodeTranscript(exportFixture("malformed/cut-off-session.jsonl"), "cut");
    expect(parsed.conversations[0]!.messages.map((message) => message.text)).toEqual([
      "Remind me what port the dev server uses.",
      "It listens on port 5173.",
    ]);
    expect(parsed.problems).toEqual([
      { position: "line 3, column 138", message: "invalid JSON; the line was skipped" },
    ]);
  });

  it("refuses a file with no entry at all", () => {
    expect(() => parseClaudeCodeTranscript("\n\n", "empty")).toThrow(
      "line 1: no JSON entry in the transcript",
    );
  });
});
