import { type SchemaToolDefinition, schemaTool } from "@atrium/kit";
import type { StandardSchemaV1, Tool } from "@atrium/spec";
import type { z } from "zod";

/**
 * A tool definition with a zod 4 input schema (`.describe()` on fields becomes per-field
 * documentation) and an optional output schema. The bridge itself is spec's `schemaTool`, shared
 * with every package that defines tools; this name and the zod typing are the agent's front door.
 */
export type ToolDefinition<Input extends z.ZodType, Returned, Output = Returned> = SchemaToolDefinition<
  Input,
  Returned,
  Output
>;

/**
 * Defines a tool from a zod schema: the JSON Schema the model sees is generated from it and
 * every call is validated against it (async refinements too), so a wrong argument comes back to
 * the model as an observation naming the field instead of reaching `execute`. With an
 * `outputSchema`, results are parsed by it before they reach the caller.
 */
export function tool<Input extends z.ZodType, Returned = unknown, Output = Returned>(
  definition: ToolDefinition<Input, Returned, Output>,
): Tool<StandardSchemaV1.InferOutput<Input>, Output> {
  return schemaTool(definition);
}
