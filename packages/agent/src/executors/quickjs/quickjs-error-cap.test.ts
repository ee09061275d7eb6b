import type { Tool } from "@atrium/spec";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_QUICKJS_LIMITS } from "../../limits.js";
import { QuickJsExecutor } from "./quickjs-executor.js";

/**
 * Issue 25: a tool's error message enters the sandbox capped on the host with `maxErrorChars`
 * and a note saying how much was cut (6M characters used to go in whole, past every transfer
 * limit).
 */
let executor: QuickJsExecutor;
const errors: (string | undefined)[] = [];

const tools: Tool[] = [
  {
    name: "boom",
    description: "Fails with a 6M-character message.",
    inputSchema: { type: "object" },
    async execute() {
      throw new Error("x".repeat(6_000_000));
    },
  },
];

beforeAll(async () => {
  executor = await QuickJsExecutor.create({
    tools,
    onToolCall: (event) => {
      if (event.type === "tool-result") errors.push(event.error);
    },
  });
});

afterAll(async () => {
  await executor.close();
});

describe("a tool's error entering QuickJS", () => {
  it(`is cut to maxErrorChars (${DEFAULT_QUICKJS_LIMITS.maxErrorChars}) with a note saying how much`, async () => {
    const result = await executor.run(
      "let m;\ntry { await boom({}); } catch (e) { m = e.message; }\n[m.length, m.slice(0, 24), m.slice(-40)]",
    );
    expect(result.error).toBeUndefined();
    const max = DEFAULT_QUICKJS_LIMITS.maxErrorChars;
    // The message keeps max - 28 characters and ends with a 28-character note: max in all.
    const note = `… [cut ${(`Tool "boom" failed: `.length + 6_000_000 - (max - 28)).toLocaleString("en-US")} characters]`;
    expect(note).toBe("… [cut 5,980,048 characters]");
    expect(result.output).toEqual([
      max,
      'Tool "boom" failed: xxxx',
      `${"x".repeat(40 - note.length)}${note}`,
    ]);
    expect(errors.map((error) => error?.length)).toEqual([max]);
  });
});
