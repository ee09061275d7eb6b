import type { JsonSchema } from "@atrium/spec";

/**
 * Renders a JSON Schema as a type in the sandbox's language, so the model sees tools as the
 * typed function signatures it has read in millions of files rather than as raw schemas.
 * Only the shapes tool schemas use are rendered precisely; anything else becomes the
 * language's "any".
 */
export interface TypeSyntax {
  any: string;
  null: string;
  string: string;
  number: string;
  integer: string;
  boolean: string;
  literal(value: unknown): string;
  union(members: string[]): string;
  array(item: string): string;
  record(value: string): string;
  object(fields: { name: string; type: string; optional: boolean }[]): string;
}

export const TYPESCRIPT_TYPES: TypeSyntax = {
  any: "unknown",
  null: "null",
  string: "string",
  number: "number",
  integer: "number",
  boolean: "boolean",
  literal: (value) => JSON.stringify(value),
  union: (members) => members.join(" | "),
  array: (item) => (/^\{.*\}$/.test(item) || !/[|&]/.test(item) ? `${item}[]` : `Array<${item}>`),
  record: (value) => `Record<string, ${value}>`,
  object: (fields) =>
    fields.length === 0
      ? "Record<string, unknown>"
      : `{ ${fields.map((f) => `${quoteKey(f.name)}${f.optional ? "?" : ""}: ${f.type}`).join("; ")} }`,
};

export const PYTHON_TYPES: TypeSyntax = {
  any: "Any",
  null: "None",
  string: "str",
  number: "float",
  integer: "int",
  boolean: "bool",
  literal: (value) => `Literal[${pythonLiteral(value)}]`,
  union: (members) => members.join(" | "),
  array: (item) => `list[${item}]`,
  record: (value) => `dict[str, ${value}]`,
  object: () => "dict",
};

export function renderType(schema: unknown, syntax: TypeSyntax, depth = 0): string {
  if (depth > 6 || typeof schema !== "object" || schema === null) return syntax.any;
  const s = schema as JsonSchema;
  if ("const" in s) return syntax.literal(s.const);
  if (Array.isArray(s.enum)) return syntax.union(s.enum.map((value) => syntax.literal(value)));
  const alternatives = (s.anyOf ?? s.oneOf) as unknown[] | undefined;
  if (Array.isArray(alternatives)) {
    return syntax.union(unique(alternatives.map((member) => renderType(member, syntax, depth + 1))));
  }
  if (Array.isArray(s.type)) {
    return syntax.union(unique(s.type.map((type) => renderType({ ...s, type }, syntax, depth + 1))));
  }
  switch (s.type) {
    case "string":
      return syntax.string;
    case "number":
      return syntax.number;
    case "integer":
      return syntax.integer;
    case "boolean":
      return syntax.boolean;
    case "null":
      return syntax.null;
    case "array":
      return syntax.array(renderType(s.items, syntax, depth + 1));
    case "object":
      return renderObject(s, syntax, depth);
    default:
      return syntax.any;
  }
}

function renderObject(schema: JsonSchema, syntax: TypeSyntax, depth: number): string {
  const properties = (schema.properties ?? {}) as Record<string, unknown>;
  const required = new Set((schema.required ?? []) as string[]);
  const names = Object.keys(properties);
  if (names.length === 0 && typeof schema.additionalProperties === "object") {
    return syntax.record(renderType(schema.additionalProperties, syntax, depth + 1));
  }
  return syntax.object(
    names.map((name) => ({
      name,
      type: renderType(properties[name], syntax, depth + 1),
      optional: !required.has(name),
    })),
  );
}

function unique(values: string[]): string[] {
  return [...new Set(values)];
}

function quoteKey(name: string): string {
  return /^[A-Za-z_$][\w$]*$/.test(name) ? name : JSON.stringify(name);
}

function pythonLiteral(value: unknown): string {
  if (value === null) return "None";
  if (value === true) return "True";
  if (value === false) return "False";
  return JSON.stringify(value);
}
