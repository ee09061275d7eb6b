import { describe, expect, it } from "vitest";
import { exportFixture } from "../../test/export-fixture.js";
import { detectFormat } from "./detect-format.js";

describe("detectFormat", () => {
  it("tells every fixture's format from its content", () => {
    const cases: [string, string][] = [
      ["claude-ai/conversations.json", "claude-ai"],
      ["chatgpt/conversations.json", "chatgpt"],
      ["claude-code/5d3c1e2a-7b8f-4c1d-9e0a-123456789abc.jsonl", "claude-code"],
      ["codex/rollout-2025-02-03T14-05-11-0195c2d1-aaaa-7bbb-8ccc-000000000042.jsonl", "codex"],
      ["codex/rollout-legacy.jsonl", "codex"],
      ["slack/general/2024-03-04.json", "slack"],
      ["plain-text/book-club.txt", "plain-text"],
      ["plain-text/assistant-notes.md", "plain-text"],
      ["malformed/cut-off-session.jsonl", "claude-code"],
    ];
    for (const [path, format] of cases) expect(detectFormat(path, exportFixture(path)), path).toBe(format);
  });

  it("does not go by the file name: a transcript saved as .txt is still JSON Lines", () => {
    const text = exportFixture("claude-code/5d3c1e2a-7b8f-4c1d-9e0a-123456789abc.jsonl");
    expect(detectFormat("session.txt", text)).toBe("claude-code");
    expect(detectFormat("export.txt", exportFixture("chatgpt/conversations.json"))).toBe("chatgpt");
  });

  it("recognises nothing in files that are no conversation export", () => {
    expect(detectFormat("slack/users.json", exportFixture("slack/users.json"))).toBeUndefined();
    expect(detectFormat("package.json", '{"name":"x","version":"1.0.0"}')).toBeUndefined();
    expect(detectFormat("notes.txt", exportFixture("plain-text/meeting-notes.txt"))).toBeUndefined();
    expect(detectFormat("broken.json", exportFixture("malformed/broken-export.json"))).toBeUndefined();
    expect(
      detectFormat("log.jsonl", '{"level":"info","msg":"a"}\n{"level":"warn","msg":"b"}\n'),
    ).toBeUndefined();
  });
});
