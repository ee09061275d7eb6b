import type { Tool } from "@atrium/spec";

/** Python's keywords (3.14): never a variable or tool name. */
const PYTHON_KEYWORDS: ReadonlySet<string> = new Set(
  "False None True and as assert async await break class continue def del elif else except finally for from global if import in is lambda nonlocal not or pass raise return try while with yield".split(
    " ",
  ),
);

/** Names the harness defines in every sandbox; tools and variables may not take them. */
export const RESERVED_NAMES: ReadonlySet<string> = new Set([
  "final_answer",
  "ToolError",
  "SandboxError",
  "print",
]);

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Why `name` cannot be a Python variable or tool name, or undefined when it can. */
export function badPythonName(name: string): string | undefined {
  if (!IDENTIFIER.test(name)) return "it is not a Python identifier";
  if (PYTHON_KEYWORDS.has(name)) return "it is a Python keyword";
  if (RESERVED_NAMES.has(name)) return "it is built into the sandbox";
  if (name.startsWith("__") && name.endsWith("__")) return "dunder names are reserved";
  return undefined;
}

/**
 * A tool's parameters in the order Python code may pass them positionally: required ones
 * first, then optional ones, each group in schema order (the order of the `def` signature the
 * Python dialect shows the model).
 */
export function toolParameters(tool: Tool): string[] {
  const schema = tool.inputSchema as { properties?: Record<string, unknown>; required?: unknown };
  const names = schema && typeof schema.properties === "object" ? Object.keys(schema.properties ?? {}) : [];
  const required = new Set(Array.isArray(schema?.required) ? (schema.required as string[]) : []);
  return [...names.filter((name) => required.has(name)), ...names.filter((name) => !required.has(name))];
}
