import type { Tool } from "@atrium/spec";

/**
 * A Python call `tool(a, b, key=c)` as the tool's input object: keyword arguments by name,
 * positional ones onto the schema's properties in their declared order. A lone positional dict
 * for a tool without declared properties is the input itself.
 */
export function toolInputFromCall(
  tool: Tool,
  args: readonly unknown[],
  kwargs: Record<string, unknown>,
): unknown {
  if (args.length === 0) return kwargs;
  const schema = tool.inputSchema as { properties?: Record<string, unknown> } | undefined;
  const names = Object.keys(schema?.properties ?? {});
  if (names.length === 0) {
    const only = args[0];
    if (
      args.length === 1 &&
      Object.keys(kwargs).length === 0 &&
      only &&
      typeof only === "object" &&
      !Array.isArray(only)
    )
      return only;
    throw new TypeError(`${tool.name}() takes keyword arguments only (it declares no parameter order)`);
  }
  if (args.length > names.length)
    throw new TypeError(
      `${tool.name}() takes at most ${names.length} positional arguments (${names.join(", ")}), got ${args.length}`,
    );
  const input: Record<string, unknown> = { ...kwargs };
  args.forEach((value, index) => {
    const name = names[index] as string;
    if (name in kwargs) throw new TypeError(`${tool.name}() got multiple values for argument '${name}'`);
    input[name] = value;
  });
  return input;
}
