import {
  ConfigError,
  errorMessage,
  formatIssues,
  isRichToolResult,
  type JsonSchema,
  type NeedsApproval,
  type RichToolResult,
  type StandardSchemaV1,
  type StandardSchemaWithJson,
  TOOL_NAME_PATTERN,
  type Tool,
  type ToolAnnotations,
  type ToolContext,
  ToolError,
  type ValidationIssue,
  type ValidationResult,
} from "@atrium/spec";

/**
 * The one bridge from a schema library to a `Tool`: the JSON Schema the model sees and the
 * validation every call goes through come from the same schema, so they cannot disagree. It
 * speaks only Standard Schema + Standard JSON Schema, so spec stays free of zod while every zod 4
 * schema (and any other library implementing both) works.
 */

type InferOutput<Schema extends StandardSchemaV1> = StandardSchemaV1.InferOutput<Schema>;

/**
 * `Returned` is what `execute` returns; `Output` is what the caller (the sandbox code, the model)
 * gets: the same, or with an `outputSchema`, `Returned` parsed by it (defaults and transforms
 * applied).
 */
export interface SchemaToolDefinition<Input extends StandardSchemaWithJson, Returned, Output = Returned> {
  /** An identifier (letters, digits, `_`): the function name inside the sandbox. */
  name: string;
  /** What the tool does, when to use it, what it returns: the model reads this. */
  description: string;
  /** An object schema, e.g. zod 4's `z.object({ ... })`; field descriptions become documentation. */
  inputSchema: Input;
  /**
   * When given, it documents the return type and every result is parsed by it: the caller gets
   * the parsed value, and a mismatch is a `ToolError` naming the tool and the field.
   */
  outputSchema?: StandardSchemaWithJson<Returned, Output>;
  /** What it does to the world, as MCP's tool annotations say it (`readOnlyHint`, `destructiveHint` ...). */
  annotations?: ToolAnnotations;
  /**
   * Each call waits for a person's approval first (`true`, or a function of the input): see
   * `Tool.needsApproval`. The function gets the validated input.
   */
  needsApproval?: NeedsApproval<InferOutput<Input>>;
  execute(
    input: InferOutput<Input>,
    context: ToolContext,
  ): Returned | RichToolResult<Returned> | Promise<Returned | RichToolResult<Returned>>;
}

/**
 * A Tool from a schema definition. Bad definitions (name, description, a schema that is not an
 * object or has no JSON Schema form) are ConfigErrors saying what to write instead.
 */
export function schemaTool<Input extends StandardSchemaWithJson, Returned = unknown, Output = Returned>(
  definition: SchemaToolDefinition<Input, Returned, Output>,
): Tool<InferOutput<Input>, Output> {
  const { name, description, inputSchema, outputSchema, execute, annotations, needsApproval } = definition;
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
  const input = schemaToolInput(inputSchema, name);
  const outputJsonSchema = outputSchema
    ? toJsonSchema(name, "outputSchema", outputSchema, "output")
    : undefined;

  return {
    name,
    description,
    ...input,
    ...(outputJsonSchema ? { outputSchema: outputJsonSchema } : {}),
    ...(annotations ? { annotations } : {}),
    ...(needsApproval === undefined ? {} : { needsApproval }),
    async execute(value, context) {
      const result = await execute(value, context);
      if (!outputSchema) return result as Output | RichToolResult<Output>;
      const rich = isRichToolResult(result);
      const parsed = await outputSchema["~standard"].validate(rich ? result.value : result);
      if (parsed.issues) {
        throw new ToolError(
          name,
          `tool ${name} returned a value that does not match its outputSchema: ${formatIssues(toIssues(parsed.issues))}`,
        );
      }
      return rich ? { ...result, value: parsed.value } : parsed.value;
    },
  };
}

/**
 * A tool's `inputSchema` (JSON Schema) and `validate` from one object schema, for tools built by
 * hand. `validate` answers synchronously when the schema does (no async refinements).
 */
export function schemaToolInput<Input extends StandardSchemaWithJson>(
  schema: Input,
  toolName: string,
): Pick<Tool<InferOutput<Input>>, "inputSchema" | "validate"> {
  const standard = (schema as Partial<StandardSchemaWithJson> | undefined)?.["~standard"];
  if (typeof standard?.validate !== "function" || typeof standard.jsonSchema?.input !== "function") {
    throw new ConfigError(
      `tool(${toolName}): inputSchema must be a schema with Standard Schema and Standard JSON Schema support, such as zod 4's z.object({ ... })`,
    );
  }
  const inputSchema = toJsonSchema(toolName, "inputSchema", schema, "input");
  if (inputSchema.type !== "object") {
    throw new ConfigError(
      `tool(${toolName}): inputSchema must be a z.object(...) (tools take one object argument), got JSON Schema type ${JSON.stringify(inputSchema.type)}`,
    );
  }
  return { inputSchema, validate: (value: unknown) => validateWithSchema(schema, value) };
}

/** Validates `value`; synchronous when the schema is, a promise otherwise. */
export function validateWithSchema<Output>(
  schema: StandardSchemaV1<unknown, Output>,
  value: unknown,
): ValidationResult<Output> | Promise<ValidationResult<Output>> {
  const result = schema["~standard"].validate(value);
  return result instanceof Promise ? result.then(toValidationResult) : toValidationResult(result);
}

function toValidationResult<Output>(result: StandardSchemaV1.Result<Output>): ValidationResult<Output> {
  return result.issues ? { ok: false, issues: toIssues(result.issues) } : { ok: true, value: result.value };
}

function toJsonSchema(
  toolName: string,
  which: "inputSchema" | "outputSchema",
  schema: StandardSchemaWithJson,
  io: "input" | "output",
): JsonSchema {
  const standard = schema["~standard"];
  // zod otherwise throws on types JSON Schema cannot express; "any" documents them as {}.
  const libraryOptions = standard.vendor === "zod" ? { unrepresentable: "any" } : undefined;
  try {
    const { $schema: _dialect, ...jsonSchema } = standard.jsonSchema[io]({
      target: "draft-2020-12",
      libraryOptions,
    });
    return jsonSchema;
  } catch (error) {
    throw new ConfigError(
      `tool(${toolName}): ${which} cannot be turned into JSON Schema (${errorMessage(error)}); use plain data types`,
      { cause: error },
    );
  }
}

function toIssues(issues: ReadonlyArray<StandardSchemaV1.Issue>): ValidationIssue[] {
  return issues.map((issue) => ({
    path: (issue.path ?? []).map((segment) => {
      const key = typeof segment === "object" && segment !== null ? segment.key : segment;
      return typeof key === "number" ? key : String(key);
    }),
    message: issue.message,
  }));
}
