import type { JsonSchema, ValidationResult } from "@atrium/spec";
import { z } from "zod";

/** A tool's JSON Schema and validator from one zod schema, so the two can never disagree. */
export function toolInput<Schema extends z.ZodType>(schema: Schema) {
  return {
    inputSchema: z.toJSONSchema(schema) as JsonSchema,
    validate(input: unknown): ValidationResult<z.infer<Schema>> {
      const parsed = schema.safeParse(input);
      if (parsed.success) return { ok: true, value: parsed.data };
      return {
        ok: false,
        issues: parsed.error.issues.map((issue) => ({
          path: issue.path.filter((key): key is string | number => typeof key !== "symbol"),
          message: issue.message,
        })),
      };
    },
  };
}
