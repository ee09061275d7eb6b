import { TOOL_NAME_PATTERN } from "@atrium/spec";

const MAX_NAME = 64;
/** Words that cannot name a function inside a JavaScript sandbox. */
const RESERVED = new Set(
  "break case catch class const continue debugger default delete do else enum export extends false finally for function if import in instanceof let new null return super switch this throw true try typeof var void while with yield await static implements interface package private protected public arguments eval".split(
    " ",
  ),
);

/** MCP names may hold dashes, dots and slashes; sandbox tools must be identifiers (`get-sum` → `get_sum`). */
export function sanitizeToolName(name: string): string {
  let clean = name.replace(/[^A-Za-z0-9_]/g, "_");
  if (!/^[A-Za-z_]/.test(clean)) clean = `_${clean}`;
  clean = clean.slice(0, MAX_NAME);
  if (RESERVED.has(clean)) clean = `${clean}_`.slice(0, MAX_NAME);
  return clean;
}

export interface NamedTool {
  server: string;
  mcpName: string;
}

/**
 * Picks one sandbox name per tool: the sanitised MCP name, or `<server>_<name>` for names
 * that more than one server (or two spellings on one server) would claim. Returns names in
 * input order; every one matches `TOOL_NAME_PATTERN` and none repeats.
 */
export function assignToolNames(tools: readonly NamedTool[]): string[] {
  const counts = new Map<string, number>();
  for (const { mcpName } of tools) {
    const name = sanitizeToolName(mcpName);
    counts.set(name, (counts.get(name) ?? 0) + 1);
  }
  const taken = new Set<string>();
  return tools.map(({ server, mcpName }) => {
    const plain = sanitizeToolName(mcpName);
    const base = (counts.get(plain) ?? 0) > 1 ? sanitizeToolName(`${server}_${plain}`) : plain;
    let name = base;
    for (let n = 2; taken.has(name); n++) name = `${base.slice(0, MAX_NAME - String(n).length - 1)}_${n}`;
    taken.add(name);
    if (!TOOL_NAME_PATTERN.test(name)) throw new Error(`internal: tool name "${name}" is not an identifier`);
    return name;
  });
}
