import { ConfigError, richToolResult, ToolError } from "@atrium/spec";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { CodeAgent } from "../src/agents/index.js";
import { ScriptedModel } from "../src/models/index.js";
import { tool } from "../src/tools/index.js";
import { js, lastText, track } from "./support/agents.js";

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

  it("validates input against async refinements too", async () => {
    const login = tool({
      name: "login",
      description: "Logs in.",
      inputSchema: z.object({
        user: z.string().refine(async (user) => user !== "root", "reserved user name"),
      }),
      execute: ({ user }) => user,
    });
    expect(await login.validate!({ user: "ada" })).toEqual({ ok: true, value: { user: "ada" } });
    expect(await login.validate!({ user: "root" })).toEqual({
      ok: false,
      issues: [{ path: ["user"], message: "reserved user name" }],
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

  it("returns the result as its outputSchema parses it: defaults and transforms applied, images kept", async () => {
    const reading = tool({
      name: "reading",
      description: "Reads a sensor.",
      inputSchema: z.object({}),
      outputSchema: z.object({
        celsius: z.number(),
        unit: z.string().default("°C"),
        label: z.string().transform((label) => label.toUpperCase()),
      }),
      execute: () => ({ celsius: 21, label: "paris" }), // no unit: the schema's default fills it
    });
    expect(await reading.execute({}, { signal })).toEqual({ celsius: 21, unit: "°C", label: "PARIS" });

    const image = { type: "image" as const, image: "AAAA", mediaType: "image/png" };
    const trimmed = tool({
      name: "trimmed",
      description: "Returns padded text with a picture.",
      inputSchema: z.object({}),
      outputSchema: z.string().trim(),
      execute: () => richToolResult("  ok  ", [image]),
    });
    expect(await trimmed.execute({}, { signal })).toEqual({
      type: "atrium.tool-result",
      value: "ok",
      images: [image],
    });
  });

  it("names the tool and the failing field when a result breaks a nested outputSchema", async () => {
    const search = tool({
      name: "search",
      description: "Searches.",
      inputSchema: z.object({}),
      outputSchema: z.array(z.object({ title: z.string(), url: z.string() })),
      execute: () => [{ title: "a", url: "https://a" }, { title: "b" }] as { title: string; url: string }[],
    });
    const error = await search.execute({}, { signal }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ToolError);
    expect((error as ToolError).toolName).toBe("search");
    expect((error as Error).message).toBe(
      "tool search returned a value that does not match its outputSchema: 1.url: Invalid input: expected string, received undefined",
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

describe("tool() output inside a CodeAgent", () => {
  const weather = tool({
    name: "weather",
    description: "Current weather.",
    inputSchema: z.object({ city: z.string() }),
    outputSchema: z.object({ celsius: z.number(), unit: z.string().default("°C") }),
    execute: ({ city }) => (city === "Atlantis" ? { celsius: "hot" as unknown as number } : { celsius: 21 }),
  });

  it("the sandbox code gets the parsed value, the schema's default included", async () => {
    const model = new ScriptedModel([
      js('const w = await weather({ city: "Paris" });\nconsole.log(JSON.stringify(w));'),
      js("final_answer(w.unit)"),
    ]);
    const agent = track(new CodeAgent({ model, tools: [weather] }));
    const result = await agent.run("Weather in Paris?");
    expect(lastText(model.calls[1]!.messages)).toBe(
      'Observation:\nExecution logs:\n{"celsius":21,"unit":"°C"}',
    );
    expect(result.output).toBe("°C");
  });

  it("a result that breaks the outputSchema reaches the model as a tool error naming tool and field", async () => {
    const model = new ScriptedModel([js('await weather({ city: "Atlantis" })'), js("final_answer(0)")]);
    const agent = track(new CodeAgent({ model, tools: [weather] }));
    await agent.run("Weather in Atlantis?");
    expect(lastText(model.calls[1]!.messages)).toBe(
      [
        "Observation:",
        'Tool error on line 1: await weather({ city: "Atlantis" })',
        'ToolError: Tool "weather" failed: tool weather returned a value that does not match its outputSchema: celsius: Invalid input: expected number, received string',
        "Fix the code and try again; do not repeat the same mistake.",
      ].join("\n"),
    );
  });
});
