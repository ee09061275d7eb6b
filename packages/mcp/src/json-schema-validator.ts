import type { JsonSchema, ValidationIssue, ValidationResult } from "@atrium/spec";
import { Ajv, type ErrorObject, type ValidateFunction } from "ajv";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";

// ajv-formats is CommonJS with a default export; under NodeNext its namespace is what we get.
const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

let draft7: Ajv | undefined;
let draft2020: Ajv | undefined;

/** Draft 2020-12 schemas (zod 4's output) need Ajv2020; everything else is treated as draft-07. */
function ajvFor(schema: JsonSchema): Ajv {
  const dialect = typeof schema.$schema === "string" ? schema.$schema : "";
  if (dialect.includes("2020-12") || dialect.includes("2019-09")) {
    draft2020 ??= addFormats(
      new Ajv2020({ strict: false, allErrors: true, logger: false }) as unknown as Ajv,
    );
    return draft2020;
  }
  draft7 ??= addFormats(new Ajv({ strict: false, allErrors: true, logger: false }));
  return draft7;
}

export type InputValidator = (input: unknown) => ValidationResult<Record<string, unknown>>;

/**
 * Compiles a tool's input schema once. Throws when the schema itself is invalid (a broken
 * server or a tool defined wrongly), with ajv's explanation.
 */
export function compileInputSchema(schema: JsonSchema): InputValidator {
  let validate: ValidateFunction;
  try {
    validate = ajvFor(schema).compile(schema);
  } catch (error) {
    throw new Error(`invalid JSON Schema: ${(error as Error).message}`, { cause: error });
  }
  return (input) =>
    validate(input)
      ? { ok: true, value: input as Record<string, unknown> }
      : { ok: false, issues: (validate.errors ?? []).map(toIssue) };
}

function toIssue(error: ErrorObject): ValidationIssue {
  const path: (string | number)[] = error.instancePath
    .split("/")
    .slice(1)
    .map((part) => part.replace(/~1/g, "/").replace(/~0/g, "~"))
    .map((part) => (/^\d+$/.test(part) ? Number(part) : part));
  if (error.keyword === "required") {
    return {
      path: [...path, (error.params as { missingProperty: string }).missingProperty],
      message: "is required",
    };
  }
  if (error.keyword === "additionalProperties") {
    const extra = (error.params as { additionalProperty: string }).additionalProperty;
    return { path: [...path, extra], message: "is not an allowed property" };
  }
  if (error.keyword === "enum") {
    const allowed = (error.params as { allowedValues: unknown[] }).allowedValues;
    return { path, message: `must be one of ${allowed.map((value) => JSON.stringify(value)).join(", ")}` };
  }
  return { path, message: error.message ?? `fails "${error.keyword}"` };
}
