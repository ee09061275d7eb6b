import { describe, expect, it } from "vitest";
import { compileInputSchema } from "./json-schema-validator.js";

describe("compileInputSchema", () => {
  it("names nested fields, array indexes, missing and extra properties", () => {
    const validate = compileInputSchema({
      type: "object",
      properties: {
        user: {
          type: "object",
          properties: {
            email: { type: "string", format: "email" },
            tags: { type: "array", items: { type: "string" } },
          },
          required: ["email"],
          additionalProperties: false,
        },
        mode: { enum: ["fast", "slow"] },
      },
      required: ["user"],
    });
    expect(validate({ user: { email: "a@b.co", tags: ["x"] }, mode: "fast" })).toEqual({
      ok: true,
      value: { user: { email: "a@b.co", tags: ["x"] }, mode: "fast" },
    });
    expect(validate({ user: { email: "nope", tags: ["x", 2], extra: 1 }, mode: "medium" })).toEqual({
      ok: false,
      issues: [
        { path: ["user", "extra"], message: "is not an allowed property" },
        { path: ["user", "email"], message: 'must match format "email"' },
        { path: ["user", "tags", 1], message: "must be string" },
        { path: ["mode"], message: 'must be one of "fast", "slow"' },
      ],
    });
    expect(validate({})).toEqual({ ok: false, issues: [{ path: ["user"], message: "is required" }] });
  });

  it("reads draft 2020-12 schemas (zod 4's dialect) with their own keywords", () => {
    const validate = compileInputSchema({
      $schema: "https://json-schema.org/draft/2020-12/schema",
      type: "object",
      properties: {
        point: { type: "array", prefixItems: [{ type: "number" }, { type: "number" }], items: false },
      },
    });
    expect(validate({ point: [1, 2] }).ok).toBe(true);
    expect(validate({ point: [1, "2", 3] })).toEqual({
      ok: false,
      issues: [
        { path: ["point", 1], message: "must be number" },
        { path: ["point"], message: "must NOT have more than 2 items" },
      ],
    });
  });

  it("refuses a schema that is not valid JSON Schema", () => {
    expect(() => compileInputSchema({ type: "object", properties: { n: { type: "integr" } } })).toThrow(
      /^invalid JSON Schema: schema is invalid: data\/properties\/n\/type must be equal to one of the allowed values/,
    );
  });
});
