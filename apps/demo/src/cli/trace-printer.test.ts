import { describe, expect, it } from "vitest";
import type { AnswerEvent, AssistantEvent } from "../assistant/assistant-events.js";
import { QUESTION_LINES, tracePrinter } from "./trace-printer.js";

const usage = { inputTokens: 0, outputTokens: 0 };
const command = (step: number, text: string, stdout: string): AssistantEvent => ({
  type: "docs-command",
  step,
  command: text,
  stdout,
  stdoutChars: stdout.length,
  stderr: "",
  exitCode: 0,
  durationMs: 12,
});

/** One docs question as the scripted model answers it: rank (5 commands), read (2), answer. */
const QUESTION: AssistantEvent[] = [
  { type: "question", question: "How do I add a custom domain?", user: "demo", model: "scripted-docs" },
  { type: "step-start", step: 1 },
  { type: "model-output", step: 1, text: "Thought: I will grep.\n```js\n…\n```", usage },
  { type: "code", step: 1, language: "javascript", code: "const a = 1;\n".repeat(30) },
  command(1, "find / -type f | wc -l", "1117\n"),
  command(1, "search 'custom domain'", "/a.mdx: x\n/b.mdx: y\n"),
  command(1, "grep -rciF -- 'custom' /", "/a.mdx:3\n/b.mdx:1\n"),
  command(1, "grep -rciF -- 'domain' /", "/a.mdx:9\n"),
  command(1, "wc -w '/a.mdx' '/b.mdx'", "  10 /a.mdx\n"),
  {
    type: "observation",
    step: 1,
    text: "Execution logs:\nweights: custom=1.3 domain=1.6\nrank 1 /a.mdx {}\nrank 0.5 /b.mdx {}\n",
  },
  { type: "step-start", step: 2 },
  { type: "model-output", step: 2, text: "Thought: I will read /a.mdx.", usage },
  { type: "code", step: 2, language: "javascript", code: "read()" },
  command(2, "cat '/a.mdx'", "---\ntitle: A\n---\n"),
  { type: "observation", step: 2, text: "Execution logs:\n==> /a.mdx <==\n---\ntitle: A\n---\n\nSet DNS.\n" },
  { type: "step-start", step: 3 },
  { type: "model-output", step: 3, text: "Thought: I can answer now.", usage },
  { type: "code", step: 3, language: "javascript", code: 'final_answer({ answer: "Set DNS." });' },
  { type: "observation", step: 3, text: "final_answer was called with:\n{…}" },
  {
    type: "answer",
    state: "success",
    answer: "Set DNS.",
    citations: [{ path: "/a.mdx", verified: true }],
    steps: 3,
    timing: { retrievalMs: 40, memoryMs: 0, executionMs: 5, modelMs: 1, totalMs: 1500 },
  },
];

function print(events: readonly AssistantEvent[], verbose = false): string {
  let out = "";
  const printer = tracePrinter((text) => (out += text), { color: false, verbose });
  for (const event of events) printer(event);
  return out;
}

describe("tracePrinter", () => {
  it("prints a question compactly: thoughts, the first commands, the start of each observation, the answer", () => {
    expect(print(QUESTION)).toBe(
      [
        "",
        "❓ How do I add a custom domain?  (user demo, model scripted-docs)",
        "  ━━ Step 1 ━━ I will grep.",
        "  $ find / -type f | wc -l 12 ms",
        "  $ search 'custom domain' 12 ms",
        "  $ … 3 more docs commands",
        "  Observation weights: custom=1.3 domain=1.6",
        "    rank 1 /a.mdx {} … 1 more lines",
        "  ━━ Step 2 ━━ I will read /a.mdx.",
        "  $ cat '/a.mdx' 12 ms",
        "  Observation ==> /a.mdx <==",
        "    title: A … 1 more lines",
        "  ━━ Step 3 ━━ I can answer now.",
        "  Answer: Set DNS.",
        "    source: /a.mdx ✓",
        "  success, 3 steps, 1.50 s (docs 40 ms, memory 0 ms, sandbox 5 ms, model 1 ms)",
        "",
      ].join("\n"),
    );
  });

  it(`keeps a long run to ${QUESTION_LINES} lines a question, the answer last, and says --verbose shows the rest`, () => {
    const steps = QUESTION.slice(1, -1);
    // Eight steps of the same kind, then the answer: the old trace printed every one of them.
    const answer = QUESTION.at(-1) as AnswerEvent;
    const cited = ["/a.mdx", "/b.mdx", "/c.mdx"].map((path) => ({ path, verified: true }));
    const long = [
      QUESTION[0]!,
      ...Array.from({ length: 8 }, () => steps).flat(),
      { ...answer, citations: cited },
    ];
    const lines = print(long).split("\n");
    expect(lines.length - 1).toBe(QUESTION_LINES);
    expect(lines.slice(-4)).toEqual([
      "  Answer: Set DNS.",
      "    sources: /a.mdx ✓, /b.mdx ✓, /c.mdx ✓",
      "  success, 3 steps, 1.50 s (docs 40 ms, memory 0 ms, sandbox 5 ms, model 1 ms)",
      "",
    ]);
    expect(lines).toContain("  … the rest of the steps: run with --verbose for the whole trace");
    // Verbose prints every step, the code among it.
    const verbose = print(long, true);
    expect(verbose.split("\n").length).toBeGreaterThan(200);
    expect(verbose).toContain("  │ const a = 1;");
    expect(verbose.match(/━━ Step/g)).toHaveLength(24);
  });

  it("shows a memory tool by its memory line, an MCP tool by its call, and no line for nothing recalled", () => {
    const events: AssistantEvent[] = [
      { type: "question", question: "What do I prefer?", user: "alice", model: "scripted-docs" },
      { type: "memory-recalled", via: "question", memories: [], durationMs: 3 },
      { type: "step-start", step: 1 },
      { type: "model-output", step: 1, text: "Thought: I will recall.", usage },
      { type: "tool-call", step: 1, id: "1", name: "recall", input: { query: "prefer" } },
      {
        type: "memory-recalled",
        via: "tool",
        memories: [{ id: "d1", content: "I prefer dark mode." }],
        durationMs: 2,
      },
      { type: "tool-call", step: 1, id: "2", name: "echo", input: { text: "hi" } },
      { type: "tool-result", step: 1, id: "2", name: "echo", output: "hi" },
      {
        type: "answer",
        state: "success",
        answer: 'You told me: "I prefer dark mode."',
        citations: [],
        steps: 1,
        timing: { retrievalMs: 0, memoryMs: 5, executionMs: 2, modelMs: 1, totalMs: 20 },
      },
    ];
    expect(print(events)).toBe(
      [
        "",
        "❓ What do I prefer?  (user alice, model scripted-docs)",
        "  ━━ Step 1 ━━ I will recall.",
        '  memory: the agent recalled: 1 ("I prefer dark mode.")',
        '  → echo({"text":"hi"})',
        '  Answer: You told me: "I prefer dark mode."',
        "  success, 1 steps, 0.02 s (docs 0 ms, memory 5 ms, sandbox 2 ms, model 1 ms)",
        "",
      ].join("\n"),
    );
  });

  it("prints the old full trace with verbose", () => {
    const out = print(QUESTION, true);
    expect(out).toContain("  ━━ Step 1 ━━\n  I will grep.\n");
    expect(out).toContain("  $ wc -w '/a.mdx' '/b.mdx' 12 ms\n      10 /a.mdx\n");
    expect(out).toContain("  ━━ Answer ━━\n    Set DNS.\n    source: /a.mdx ✓\n");
    expect(out.split("\n").length - 1).toBeGreaterThan(QUESTION_LINES);
  });
});
