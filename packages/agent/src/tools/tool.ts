import {
  ConfigError,
  formatIssues,
  isRichToolResult,
  type JsonSchema,
  type RichToolResult,
  TOOL_NAME_PATTERN,
  type Tool,
  type ToolContext,
  ToolError,
  type ValidationIssue,
  type ValidationResult,
} from "@atrium/spec";
import { z } from "zod";

/**
 * `Returned` is what `execute` returns; `Output` is what the caller (the sandbox code, the model)
 * gets: the same, or with an `outputSchema`, `Returned` parsed by it (defaults and transforms
 * applied).
 */
export interface ToolDefinition<Input extends z.ZodType, Returned, Output = Returned> {
  /** An identifier (letters, digits, `_`): the function name inside the sandbox. */
  name: string;
  /** What the tool does, when to use it, what it returns: the model reads this. */
  description: string;
  /** A zod 4 object schema; `.describe()` on fields becomes per-field documentation. */
  inputSchema: Input;
  /**
   * When given, it documents the return type and every result is parsed by it: the caller gets
   * the parsed value (defaults and transforms applied), and a mismatch is a `ToolError` naming
   * the tool and the field.
   */
  outputSchema?: z.ZodType<Output, Returned>;
  execute(
    input: z.output<Input>,
    context: ToolContext,
  ): Returned | RichToolResult<Returned> | Promise<Returned | RichToolResult<Returned>>;
}

/**
 * Defines a tool from a zod schema: the JSON Schema the model sees is generated from it and
 * every call is validated against it, so a wrong argument comes back to the model as an
 * observation naming the field instead of reaching `execute`. With an `outputSchema`, results
 * are parsed by it before they reach the caller.
 */
export function tool<Input extends z.ZodType, Returned = unknown, Output = Returned>(
  definition: ToolDefinition<Input, Returned, Output>,
): Tool<z.output<Input>, Output> {
  const { name, description, inputSchema, outputSchema, execute } = definition;
  if (typeof name !== "string" || !TOOL_NAME_PATTERN.test(name)) {
    throw new ConfigError(
      `tool(): name ${JSON.stringify(name)} is not a valid identifier; use letters, digits and _ (e.g. "web_search")`,
    );
  }
  if (typeof description !== "string" || description.trim() === "") {
    throw new ConfigError(
      `tool(${name}): give a description; the model decides from it when to call the tool`,
    );
  }
  if (!(inputSchema instanceof z.ZodType)) {
    throw new ConfigError(`tool(${name}): inputSchema must be a zod 4 schema such as z.object({ ... })`);
  }
  const inputJsonSchema = toJsonSchema(name, "inputSchema", inputSchema, "input");
  if (inputJsonSchema.type !== "object") {
    throw new ConfigError(
      `tool(${name}): inputSchema must be a z.object(...) (tools take one object argument), got JSON Schema type ${JSON.stringify(inputJsonSchema.type)}`,
    );
  }
  const outputJsonSchema = outputSchema
    ? toJsonSchema(name, "outputSchema", outputSchema, "output")
    : undefined;

  return {
    name,
    description,
    inputSchema: inputJsonSchema,
    ...(outputJsonSchema ? { outputSchema: outputJsonSchema } : {}),
    validate: (input: unknown) =>
      validateWith(inputSchema, input) as Promise<ValidationResult<z.output<Input>>>,
    async execute(input, context) {
      const result = await execute(input, context);
      if (!outputSchema) return result as Output | RichToolResult<Output>;
      const rich = isRichToolResult(result);
      const parsed = await outputSchema.safeParseAsync(rich ? result.value : result);
      if (!parsed.success) {
        throw new ToolError(
          name,
          `tool ${name} returned a value that does not match its outputSchema: ${formatIssues(toIssues(parsed.error.issues))}`,
        );
      }
      return rich ? { ...result, value: parsed.data } : parsed.data;
    },
  };
}

function toJsonSchema(name: string, which: string, schema: z.ZodType, io: "input" | "output"): JsonSchema {
  try {
    const { $schema: _dialect, ...jsonSchema } = z.toJSONSchema(schema, { io, unrepresentable: "any" });
    return jsonSchema as JsonSchema;
  } catch (error) {
    throw new ConfigError(
      `tool(${name}): ${which} cannot be turned into JSON Schema (${(error as Error).message}); use plain data types`,
      { cause: error },
    );
  }
}

/** Async, so schemas with async refinements or transforms work too. */
async function validateWith<T>(schema: z.ZodType<T>, input: unknown): Promise<ValidationResult<T>> {
  const parsed = await schema.safeParseAsync(input);
  if (parsed.success) return { ok: true, value: parsed.data };
  return { ok: false, issues: toIssues(parsed.error.issues) };
}

function toIssues(issues: readonly z.core.$ZodIssue[]): ValidationIssue[] {
  return issues.map((issue) => ({
    path: issue.path.map((key) => (typeof key === "number" ? key : String(key))),
    message: issue.message,
  }));
}
