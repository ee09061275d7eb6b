import { ConfigError, TOOL_NAME_PATTERN, type Tool } from "@atrium/spec";
import { DEFAULT_AGENT_LOOP_LIMITS } from "../limits.js";
import { variablesNote } from "../prompts/loop-prompts.js";
import { truncateMiddle } from "./truncate.js";

/** Checks an agent's tools: spec tools with identifier names, unique, none called final_answer. */
export function checkTools(tools: readonly Tool[]): readonly Tool[] {
  if (!Array.isArray(tools)) throw new ConfigError("tools must be an array of Tool (see tool())");
  const seen = new Set<string>();
  for (const each of tools) {
    if (!each || typeof each.execute !== "function" || typeof each.name !== "string") {
      throw new ConfigError(
        "every tool needs a name and an execute function; define tools with tool({ ... })",
      );
    }
    if (!TOOL_NAME_PATTERN.test(each.name)) {
      throw new ConfigError(`tool name ${JSON.stringify(each.name)} is not a valid identifier`);
    }
    if (each.name === "final_answer") {
      throw new ConfigError("a tool may not be called final_answer: every agent defines it already");
    }
    if (seen.has(each.name))
      throw new ConfigError(`two tools are called ${each.name}; tool names must be unique`);
    seen.add(each.name);
  }
  return [...tools];
}

export function positiveInteger(name: string, value: number): number {
  if (!Number.isInteger(value) || value < 1)
    throw new ConfigError(`${name} must be a positive integer, got ${value}`);
  return value;
}

export function nonNegativeInteger(name: string, value: number): number {
  if (!Number.isInteger(value) || value < 0)
    throw new ConfigError(`${name} must be a whole number ≥ 0, got ${value}`);
  return value;
}

/** The task's note naming the extra variables, each with a short preview of its value. */
export function describeVariables(variables: Record<string, unknown>): string {
  if (typeof variables !== "object" || variables === null || Array.isArray(variables)) {
    throw new ConfigError("variables must be an object mapping names to JSON-compatible values");
  }
  const names = Object.keys(variables);
  if (names.length === 0) return "";
  const previews = names.map((name) => {
    let text: string;
    try {
      text = JSON.stringify(variables[name]) ?? String(variables[name]);
    } catch {
      text = String(variables[name]);
    }
    return truncateMiddle(text, DEFAULT_AGENT_LOOP_LIMITS.maxVariablePreviewChars);
  });
  return variablesNote(names, previews);
}
