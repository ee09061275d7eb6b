import type { CodeLanguage, JsonSchema, Tool } from "@atrium/spec";
import { PYTHON_TYPES, renderType, TYPESCRIPT_TYPES } from "./json-schema-types.js";

interface Field {
  name: string;
  type: unknown;
  description: string | undefined;
  required: boolean;
}

function fieldsOf(schema: JsonSchema): Field[] {
  const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set((schema.required ?? []) as string[]);
  return Object.entries(properties).map(([name, property]) => ({
    name,
    type: property,
    description: typeof property?.description === "string" ? property.description : undefined,
    required: required.has(name),
  }));
}

/** A tool as a documented, typed async function declaration in TypeScript syntax. */
export function javascriptSignature(tool: Tool): string {
  const input = renderType(tool.inputSchema, TYPESCRIPT_TYPES);
  const output = tool.outputSchema ? renderType(tool.outputSchema, TYPESCRIPT_TYPES) : "unknown";
  const doc = [
    ...tool.description.trim().split("\n"),
    ...fieldsOf(tool.inputSchema)
      .filter((field) => field.description)
      .map((field) => `@param input.${field.name} ${field.description}`),
  ];
  const comment = ["/**", ...doc.map((line) => ` * ${line}`.trimEnd()), " */"].join("\n");
  return `${comment}\nasync function ${tool.name}(input: ${input}): Promise<${output}>;`;
}

/** A tool as a Python function with keyword arguments and a Google-style docstring. */
export function pythonSignature(tool: Tool): string {
  const fields = fieldsOf(tool.inputSchema).sort((a, b) => Number(b.required) - Number(a.required));
  const params = fields.map((field) => {
    const type = renderType(field.type, PYTHON_TYPES);
    return field.required ? `${field.name}: ${type}` : `${field.name}: ${type} | None = None`;
  });
  const output = tool.outputSchema ? renderType(tool.outputSchema, PYTHON_TYPES) : "Any";
  const described = fields.filter((field) => field.description);
  const doc = [
    ...tool.description.trim().split("\n"),
    ...(described.length
      ? ["", "Args:", ...described.map((field) => `    ${field.name}: ${field.description}`)]
      : []),
  ];
  const body = ['"""', ...doc, '"""'].map((line) => (line ? `    ${line}` : ""));
  return [`def ${tool.name}(${params.join(", ")}) -> ${output}:`, ...body].join("\n");
}

export function toolSignature(tool: Tool, language: CodeLanguage): string {
  return language === "python" ? pythonSignature(tool) : javascriptSignature(tool);
}
