// Issue 25: a tool's error message enters the Python sandbox capped on the host with
// maxErrorChars, with a note saying how much was cut (it used to cross whole).
import type { Tool } from "@atrium/spec";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_PYTHON_LIMITS, drainPythonWorkers, PythonExecutor } from "../src/index.js";

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

let executor: PythonExecutor;

beforeAll(async () => {
  executor = await PythonExecutor.create({ tools });
}, 180_000);

afterAll(async () => {
  await executor?.close();
  await drainPythonWorkers();
});

describe("a tool's error entering Python", () => {
  it(`is cut to maxErrorChars (${DEFAULT_PYTHON_LIMITS.maxErrorChars}) with a note saying how much`, {
    timeout: 120_000,
  }, async () => {
    const result = await executor.run(
      "try:\n    boom()\n    m = ''\nexcept Exception as e:\n    m = str(e)\n[len(m), m[:24], m[-40:]]",
    );
    expect(result.error).toBeUndefined();
    const max = DEFAULT_PYTHON_LIMITS.maxErrorChars;
    // The message keeps max - 28 characters and ends with a 28-character note: max in all.
    const note = `… [cut ${(`Tool "boom" failed: `.length + 6_000_000 - (max - 28)).toLocaleString("en-US")} characters]`;
    expect(note).toBe("… [cut 5,996,048 characters]");
    expect(result.output).toEqual([
      max,
      'Tool "boom" failed: xxxx',
      `${"x".repeat(40 - note.length)}${note}`,
    ]);
  });
});
