import { ConfigError, richToolResult, ToolError } from "@atrium/spec";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { tool } from "../src/tools/index.js";

const signal = new AbortController().signal;

const add = tool({
  name: "add",
  description: "Adds two numbers.",
  inputSchema: z.object({ a: z.number().describe("The first number."), b: z.number().optional() }),
  outputSchema: z.number(),
  execute: ({ a, b = 0 }) => a + b,
});

describe("tool()", () => {
  it("generates the JSON Schema the model sees from the zod schema", () => {
    expect(add.inputSchema).toEqual({
      type: "object",
      properties: { a: { type: "number", description: "The first number." }, b: { type: "number" } },
      required: ["a"],
    });
    expect(add.outputSchema).toEqual({ type: "number" });
  });

  it("validates input and names the offending field", async () => {
    expect(await add.validate!({ a: 1, b: 2 })).toEqual({ ok: true, value: { a: 1, b: 2 } });
    expect(await add.validate!({ a: "one" })).toEqual({
      ok: false,
      issues: [{ path: ["a"], message: "Invalid input: expected number, received string" }],
    });
  });

  it("runs execute and passes rich results with images through", async () => {
    expect(await add.execute({ a: 2, b: 3 }, { signal })).toBe(5);
    const image = { type: "image" as const, image: "AAAA", mediaType: "image/png" };
    const snap = tool({
      name: "snap",
      description: "Takes a picture.",
      inputSchema: z.object({}),
      execute: () => richToolResult("ok", [image]),
    });
    expect(await snap.execute({}, { signal })).toEqual({
      type: "atrium.tool-result",
      value: "ok",
      images: [image],
    });
  });

  it("rejects results that break the output schema with a ToolError", async () => {
    const liar = tool({
      name: "liar",
      description: "Says it returns a number.",
      inputSchema: z.object({}),
      outputSchema: z.number(),
      execute: () => "seven" as unknown as number,
    });
    const error = await liar.execute({}, { signal }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ToolError);
    expect((error as Error).message).toBe(
      "tool liar returned a value that does not match its outputSchema: Invalid input: expected number, received string",
    );
  });

  it("refuses bad definitions with a ConfigError that says what to do", () => {
    const execute = () => 1;
    expect(() => tool({ name: "bad name", description: "x", inputSchema: z.object({}), execute })).toThrow(
      new ConfigError(
        'tool(): name "bad name" is not a valid identifier; use letters, digits and _ (e.g. "web_search")',
      ),
    );
    expect(() => tool({ name: "t", description: " ", inputSchema: z.object({}), execute })).toThrow(
      "tool(t): give a description",
    );
    expect(() => tool({ name: "t", description: "d", inputSchema: z.string(), execute })).toThrow(
      'tool(t): inputSchema must be a z.object(...) (tools take one object argument), got JSON Schema type "string"',
    );
  });
});
