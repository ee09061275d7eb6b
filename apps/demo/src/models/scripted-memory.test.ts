import { describe, expect, it } from "vitest";
import { memoryGuide } from "../memory/memory-guide.js";
import {
  memoryShown,
  memoryTerms,
  parseMemoryObservation,
  quoteMemories,
  relevantFacts,
  relevantMemories,
} from "./scripted-memory.js";

const SIGNATURES = ["recall", "remember", "kg_query", "kg_add"]
  .map((name) => `async function ${name}(input: { query: string }): Promise<unknown>;`)
  .join("\n");

describe("the scripted model's memory reading", () => {
  it("reads the user and the room from the memory guide the assistant writes", () => {
    const guide = memoryGuide('al"ice');
    expect(memoryShown(`${SIGNATURES}\n${guide}`)).toEqual({
      user: 'al"ice',
      room: "memories",
      hasTools: true,
    });
    const pythonSignatures = ["recall", "remember", "kg_query", "kg_add"]
      .map((name) => `def ${name}(query: str) -> Any:\n    """…"""`)
      .join("\n\n");
    expect(memoryShown(`\n${pythonSignatures}\n${guide}`)?.hasTools).toBe(true);
    expect(memoryShown(guide)).toEqual({ user: 'al"ice', room: "memories", hasTools: false });
    expect(memoryShown(SIGNATURES)).toBeUndefined();
  });

  it("reads back what the memory step printed", () => {
    expect(
      parseMemoryObservation(
        [
          "Execution logs:",
          'remembered {"id":"d1","created":true,"content":"I prefer tea."}',
          'fact "Stored: alice — prefers → tea."',
          'recalled "My project uses GitLab."',
          'known "alice — project_uses → GitLab"',
        ].join("\n"),
      ),
    ).toEqual({
      remembered: [{ id: "d1", created: true, content: "I prefer tea." }],
      recalled: ["My project uses GitLab."],
      known: ["alice — project_uses → GitLab"],
    });
  });

  it("keeps the memories and facts about what the question refers to, and quotes them exactly", () => {
    const recalled = ["I prefer tea.", "My project uses GitLab."];
    expect(relevantMemories(recalled, "prefer")).toEqual(["I prefer tea."]);
    expect(relevantMemories(recalled, "project")).toEqual(["My project uses GitLab."]);
    expect(relevantMemories(recalled, "")).toEqual(recalled);
    expect(relevantFacts(["alice — prefers → tea", "alice — project_uses → GitLab"], "project")).toEqual([
      "alice — project_uses → GitLab",
    ]);
    expect(memoryTerms(["My project uses GitLab."], "project", 5)).toEqual(["gitlab"]);
    expect(quoteMemories(["I prefer tea.", "My project uses GitLab"])).toBe(
      'You told me: "I prefer tea." and "My project uses GitLab".',
    );
  });
});
