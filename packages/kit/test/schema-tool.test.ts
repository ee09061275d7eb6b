import type { StandardSchemaV1, StandardSchemaWithJson } from "@atrium/spec";
import { ConfigError, richToolResult, ToolError } from "@atrium/spec";
import { describe, expect, it } from "vitest";
import { schemaTool, schemaToolInput, validateWithSchema } from "../src/tool-call/schema-tool.js";

/**
 * A hand-written schema implementing Standard Schema + Standard JSON Schema, so these tests show
 * the bridge works with no schema library at all (zod itself is covered by the agent's tests).
 */
function schema<Output>(
  jsonSchema: Record<string, unknown>,
  check: (value: unknown) => StandardSchemaV1.Result<Output> | Promise<StandardSchemaV1.Result<Output>>,
  vendor = "hand-made",
): StandardSchemaWithJson<unknown, Output> & { targets: string[] } {
  const targets: string[] = [];
  const describe = (options: { target: string; libraryOptions?: Record<string, unknown> }) => {
    targets.push(`${options.target} ${JSON.stringify(options.libraryOptions ?? null)}`);
    return { $schema: "https://json-schema.org/draft/2020-12/schema", ...jsonSchema };
  };
  return {
    targets,
    "~standard": {
      version: 1,
      vendor,
      validate: check,
      jsonSchema: { input: describe, output: describe },
    },
  };
}

const cityInput = schema<{ city: string }>(
  { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
  (value) =>
    typeof (value as { city?: unknown })?.city === "string"
      ? { value: { city: (value as { city: string }).city.trim() } }
      : { issues: [{ message: "expected a string", path: [{ key: "city" }] }] },
);

const celsiusOutput = schema<{ celsius: number }>({ type: "object" }, (value) =>
  typeof (value as { celsius?: unknown })?.celsius === "number"
    ? { value: value as { celsius: number } }
    : { issues: [{ message: "expected a number", path: ["readings", 2, "celsius"] }] },
);

const signal = new AbortController().signal;

describe("schemaTool", () => {
  it("takes its JSON Schema from the schema, without the $schema dialect line", () => {
    const weather = schemaTool({
      name: "weather",
      description: "Weather in a city.",
      inputSchema: cityInput,
      outputSchema: celsiusOutput,
      execute: () => ({ celsius: 21 }),
    });
    expect(weather.inputSchema).toEqual({
      type: "object",
      properties: { city: { type: "string" } },
      required: ["city"],
    });
    expect(weather.outputSchema).toEqual({ type: "object" });
    // Vendor options are passed only to the vendor that defines them.
    expect(cityInput.targets).toEqual(["draft-2020-12 null"]);
  });

  it("asks zod to document unrepresentable types instead of throwing", () => {
    const zodLike = schema({ type: "object" }, (value) => ({ value }), "zod");
    schemaToolInput(zodLike, "t");
    expect(zodLike.targets).toEqual(['draft-2020-12 {"unrepresentable":"any"}']);
  });

  it("validates synchronously for a synchronous schema, naming the field", () => {
    const { validate } = schemaToolInput(cityInput, "weather");
    expect(validate?.({ city: " Oslo " })).toEqual({ ok: true, value: { city: "Oslo" } });
    expect(validate?.({ city: 3 })).toEqual({
      ok: false,
      issues: [{ path: ["city"], message: "expected a string" }],
    });
  });

  it("awaits an asynchronous schema", async () => {
    const slow = schema({ type: "object" }, async (value) =>
      value === null ? { issues: [{ message: "required" }] } : { value },
    );
    const pending = validateWithSchema(slow, null);
    expect(pending).toBeInstanceOf(Promise);
    expect(await pending).toEqual({ ok: false, issues: [{ path: [], message: "required" }] });
    expect(await validateWithSchema(slow, { a: 1 })).toEqual({ ok: true, value: { a: 1 } });
  });

  it("parses results by the output schema, rich results included, and refuses mismatches", async () => {
    const image = { type: "image" as const, image: "AAAA", mediaType: "image/png" };
    let reply: unknown = { celsius: 21 };
    const weather = schemaTool({
      name: "weather",
      description: "Weather in a city.",
      inputSchema: cityInput,
      outputSchema: celsiusOutput,
      execute: () => reply as { celsius: number },
    });
    expect(await weather.execute({ city: "Oslo" }, { signal })).toEqual({ celsius: 21 });
    reply = richToolResult({ celsius: 5 }, [image]);
    expect(await weather.execute({ city: "Oslo" }, { signal })).toEqual(
      richToolResult({ celsius: 5 }, [image]),
    );
    reply = { celsius: "warm" };
    await expect(weather.execute({ city: "Oslo" }, { signal })).rejects.toThrow(
      new ToolError(
        "weather",
        "tool weather returned a value that does not match its outputSchema: readings.2.celsius: expected a number",
      ),
    );
  });

  it("refuses bad definitions with a ConfigError saying what to write", () => {
    const execute = () => 1;
    const refusal = (definition: Parameters<typeof schemaTool>[0]) => {
      try {
        schemaTool(definition);
      } catch (error) {
        expect(error).toBeInstanceOf(ConfigError);
        return (error as Error).message;
      }
      throw new Error("expected a ConfigError");
    };
    expect(refusal({ name: "bad name", description: "x", inputSchema: cityInput, execute })).toBe(
      'tool(): name "bad name" is not a valid identifier; use letters, digits and _ (e.g. "web_search")',
    );
    expect(refusal({ name: "t", description: " ", inputSchema: cityInput, execute })).toBe(
      "tool(t): give a description; the model decides from it when to call the tool",
    );
    expect(refusal({ name: "t", description: "d", inputSchema: { type: "object" } as never, execute })).toBe(
      "tool(t): inputSchema must be a schema with Standard Schema and Standard JSON Schema support, such as zod 4's z.object({ ... })",
    );
    const text = schema({ type: "string" }, (value) => ({ value }));
    expect(refusal({ name: "t", description: "d", inputSchema: text, execute })).toBe(
      'tool(t): inputSchema must be a z.object(...) (tools take one object argument), got JSON Schema type "string"',
    );
    const unrepresentable = () => {
      throw new Error("Date cannot be represented in JSON Schema");
    };
    const date: StandardSchemaWithJson = {
      "~standard": {
        version: 1,
        vendor: "hand-made",
        validate: (value) => ({ value }),
        jsonSchema: { input: unrepresentable, output: unrepresentable },
      },
    };
    expect(refusal({ name: "t", description: "d", inputSchema: date, execute })).toBe(
      "tool(t): inputSchema cannot be turned into JSON Schema (Date cannot be represented in JSON Schema); use plain data types",
    );
  });
});
