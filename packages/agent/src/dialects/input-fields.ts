import type { JsonSchema } from "@atrium/spec";

/** One property of a tool's input object, as a signature renders it. */
export interface InputField {
  name: string;
  /** The property's JSON Schema. */
  type: unknown;
  description: string | undefined;
  required: boolean;
}

/** The properties of an object schema in declaration order. */
export function inputFields(schema: JsonSchema): InputField[] {
  const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set((schema.required ?? []) as string[]);
  return Object.entries(properties).map(([name, property]) => ({
    name,
    type: property,
    description: typeof property?.description === "string" ? property.description : undefined,
    required: required.has(name),
  }));
}
