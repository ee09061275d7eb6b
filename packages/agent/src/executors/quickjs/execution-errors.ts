import type { ExecutionError, ExecutionErrorKind } from "@atrium/spec";

/** What the prelude's `describeError` reports about a thrown value. */
export interface DescribedError {
  isError: boolean;
  isToolError: boolean;
  name: string;
  message: string;
  stack: string;
}

/** An `ExecutionError`, with the failing line and its text when the line is known. */
export function executionError(
  kind: ExecutionErrorKind,
  name: string,
  message: string,
  code: string,
  line?: number,
): ExecutionError {
  const lines = code.split("\n");
  if (line === undefined || line < 1 || line > lines.length) return { kind, name, message };
  return { kind, name, message, line, lineText: lines[line - 1] ?? "" };
}

/**
 * Classifies an error thrown by the code. The line comes from the first stack frame in this
 * run's file: the notebook rewrite keeps lines where they were, so it is the user's line.
 */
export function describedToExecutionError(
  described: DescribedError,
  code: string,
  fileName: string,
  maxStackBytes: number,
): ExecutionError {
  const line = lineFromStack(described.stack, fileName);
  if (described.isToolError) return executionError("tool", described.name, described.message, code, line);
  if (described.name === "InternalError" && described.message === "out of memory") {
    return executionError("memory", "MemoryError", outOfMemoryMessage(), code, line);
  }
  if (described.name === "InternalError" && described.message === "stack overflow") {
    const message = `Maximum call stack size exceeded (the sandbox has ${Math.round(maxStackBytes / 1024)} KiB of stack): recursion too deep`;
    return executionError("runtime", "RangeError", message, code, line);
  }
  return executionError("runtime", described.name, described.message, code, line);
}

export function outOfMemoryMessage(maxMemoryBytes?: number): string {
  const limit = maxMemoryBytes ? ` of ${Math.round(maxMemoryBytes / (1024 * 1024))} MiB` : "";
  return `Out of memory: the code used up the sandbox's memory${limit}; work on smaller pieces of data`;
}

function lineFromStack(stack: string, fileName: string): number | undefined {
  const escaped = fileName.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  const match = new RegExp(`${escaped}:(\\d+)`).exec(stack);
  return match ? Number(match[1]) : undefined;
}
