import type { Tool } from "@atrium/spec";
import { describe, expect, it } from "vitest";
import { runSandboxToolCall } from "../src/tool-call/sandbox-tool-call.js";
import { capText } from "../src/values/cap-text.js";

describe("capText", () => {
  it("keeps short text, cuts long text to exactly maxChars with a note, and is idempotent", () => {
    expect(capText("short", 10)).toBe("short");
    const capped = capText("x".repeat(1_000), 100);
    expect(capped).toBe(`${"x".repeat(78)}… [cut 922 characters]`);
    expect(capped).toHaveLength(100);
    expect(capText(capped, 100)).toBe(capped);
    expect(capText("x".repeat(6_000_000), 20_000)).toBe(`${"x".repeat(19_972)}… [cut 5,980,028 characters]`);
  });

  it("never splits a surrogate pair", () => {
    // 79 characters would end inside the 40th emoji; the cut moves before it.
    expect(capText("😀".repeat(500), 101)).toBe(`${"😀".repeat(39)}… [cut 922 characters]`);
  });
});

describe("runSandboxToolCall caps a tool's error message for every executor", () => {
  const boom: Tool = {
    name: "boom",
    description: "fails with 6M characters",
    inputSchema: { type: "object" },
    async execute() {
      throw new Error("x".repeat(6_000_000));
    },
  };
  const call = {
    tool: boom,
    input: {},
    id: "c",
    images: [],
    maxJsonChars: 100,
    limitName: "maxTransferChars",
  };

  it("with the executor's maxErrorChars, and 20,000 when it names none (the micro-VM)", async () => {
    const signal = new AbortController().signal;
    expect(await runSandboxToolCall({ ...call, signal, maxErrorChars: 100 })).toEqual({
      ok: false,
      name: "ToolError",
      message: `Tool "boom" failed: ${"x".repeat(52)}… [cut 5,999,948 characters]`,
    });
    const outcome = await runSandboxToolCall({ ...call, signal });
    expect(outcome).toMatchObject({ ok: false, name: "ToolError" });
    expect((outcome as { message: string }).message).toHaveLength(20_000);
  });
});
