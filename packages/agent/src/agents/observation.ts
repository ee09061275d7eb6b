import type { ExecutionError, ExecutionResult } from "@atrium/spec";
import { truncateMiddle } from "./truncate.js";

/** A value as the model reads it: strings verbatim, everything else as indented JSON. */
export function formatValue(value: unknown): string {
  if (typeof value === "string") return value;
  if (value === undefined) return "undefined";
  try {
    return JSON.stringify(value, null, 2) ?? String(value);
  } catch {
    return String(value);
  }
}

/** Names the failing line and its text, so the model can fix exactly that line. */
export function formatExecutionError(error: ExecutionError): string {
  const where =
    error.line === undefined
      ? ""
      : ` on line ${error.line}${error.lineText === undefined ? "" : `: ${error.lineText.trim()}`}`;
  const lost = error.stateLost
    ? "\nThe sandbox had to be reset: variables and functions from earlier steps are gone."
    : "";
  return `${kindLabel(error.kind)}${where}\n${error.name}: ${error.message}${lost}`;
}

function kindLabel(kind: ExecutionError["kind"]): string {
  switch (kind) {
    case "syntax":
      return "Syntax error";
    case "tool":
      return "Tool error";
    case "timeout":
      return "Time limit exceeded";
    case "memory":
      return "Memory limit exceeded";
    case "output-limit":
      return "Output limit exceeded";
    case "crashed":
      return "Sandbox crashed";
    default:
      return "Error";
  }
}

/** The observation the model reads after one code step; cut head-and-tail at `maxChars`. */
export function codeObservation(result: ExecutionResult, maxChars: number): string {
  const parts: string[] = [];
  if (result.logs) parts.push(`Execution logs:\n${result.logs.replace(/\n$/, "")}`);
  if (result.error) {
    parts.push(formatExecutionError(result.error));
    parts.push("Fix the code and try again; do not repeat the same mistake.");
  } else if (result.isFinalAnswer) {
    parts.push(`final_answer was called with:\n${formatValue(result.output)}`);
  } else if (result.output !== undefined) {
    parts.push(`Last output from code snippet:\n${formatValue(result.output)}`);
  } else if (!result.logs) {
    parts.push("The code ran without printing anything, and its last expression had no value.");
  }
  return truncateMiddle(parts.join("\n"), maxChars);
}
