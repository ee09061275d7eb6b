import { describe, expect, it } from "vitest";
import { stepTracePrinter, wantsColor } from "../src/cli/step-trace.js";

describe("step trace", () => {
  it("uses colours only on a terminal without NO_COLOR", () => {
    expect(wantsColor({ isTTY: true }, {})).toBe(true);
    expect(wantsColor({ isTTY: true }, { NO_COLOR: "1" })).toBe(false);
    expect(wantsColor({ isTTY: true }, { TERM: "dumb" })).toBe(false);
    expect(wantsColor({ isTTY: false }, {})).toBe(false);
    expect(wantsColor({}, {})).toBe(false);
  });

  it("styles lines with ANSI codes when colours are on, and prints plain text otherwise", () => {
    let coloured = "";
    let plain = "";
    const event = { type: "tool-result", step: 1, id: "c1", name: "add", output: 3 } as const;
    stepTracePrinter((text) => {
      coloured += text;
    }, true)(event);
    stepTracePrinter((text) => {
      plain += text;
    }, false)(event);
    expect(plain).toBe("← add: 3\n");
    expect(coloured).toBe("\u001b[33m← add: 3\u001b[39m\n");
  });
});

describe("step trace of a streamed reply", () => {
  it("prints deltas as they come, indented, and ends the line at model-output", () => {
    let out = "";
    const print = stepTracePrinter((text) => {
      out += text;
    }, false);
    print({ type: "model-delta", step: 1, text: "Thought: go.\n" });
    print({ type: "model-delta", step: 1, text: "```js\nfinal_answer(1)" });
    print({
      type: "model-output",
      step: 1,
      text: "ignored when streamed",
      usage: { inputTokens: 1, outputTokens: 1 },
    });
    print({
      type: "model-output",
      step: 2,
      text: "Not streamed.",
      usage: { inputTokens: 1, outputTokens: 1 },
    });
    print({ type: "code", step: 2, language: "javascript", code: "2" });
    expect(out).toBe("  Thought: go.\n  ```js\n  final_answer(1)\n  Not streamed.\n▶ javascript\n  2\n");
  });
});

describe("step trace of planning", () => {
  it("prints a plan once, under its heading", () => {
    let out = "";
    const print = stepTracePrinter((text) => {
      out += text;
    }, false);
    const usage = { inputTokens: 1, outputTokens: 1 };
    print({ type: "model-output", step: 1, text: "1. Add.", usage });
    print({ type: "planning", step: 1, plan: "1. Add." });
    print({ type: "step-start", step: 1 });
    print({ type: "model-output", step: 1, text: "Thought: add.", usage });
    print({ type: "code", step: 1, language: "javascript", code: "1 + 1" });
    expect(out).toBe("Plan\n  1. Add.\n━━ Step 1 ━━\n  Thought: add.\n▶ javascript\n  1 + 1\n");
  });
});

describe("step trace of approvals", () => {
  it("prints the call that waits, with its input as compact JSON and its step, then the answer", () => {
    let out = "";
    const print = stepTracePrinter((text) => {
      out += text;
    }, false);
    print({ type: "approval-requested", step: 2, id: "c1", name: "delete_file", input: { name: "a.txt" } });
    print({ type: "approval-resolved", step: 2, id: "c1", name: "delete_file", approved: true });
    print({
      type: "approval-requested",
      step: 3,
      id: "c2",
      name: "delete_file",
      input: { name: "x".repeat(400) },
    });
    print({
      type: "approval-resolved",
      step: 3,
      id: "c2",
      name: "delete_file",
      approved: false,
      reason: "too long",
    });
    print({ type: "approval-resolved", step: 3, id: "c3", name: "wipe", approved: false });
    expect(out).toBe(
      [
        '⏸ delete_file({"name":"a.txt"}) needs approval (step 2)',
        "✓ delete_file approved",
        `⏸ delete_file({"name":"${"x".repeat(291)}… (411 characters in all)) needs approval (step 3)`,
        "✗ delete_file denied: too long",
        "✗ wipe denied",
        "",
      ].join("\n"),
    );
  });
});
