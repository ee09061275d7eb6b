/**
 * A message for anything code may throw, including values that are not Errors and hostile ones
 * (a getter that throws, a cycle): what a sandbox shows its code when a host tool fails.
 */
export function describeThrown(error: unknown): string {
  try {
    if (error instanceof Error) return error.message || error.name || "Error";
    if (typeof error === "string") return error;
    if (error === null || error === undefined) return `it threw ${String(error)}`;
    if (typeof error === "object") {
      const message = (error as { message?: unknown }).message;
      if (typeof message === "string") return message;
      return `it threw a non-Error value: ${jsonOrTag(error)}`;
    }
    return `it threw ${String(error)}`;
  } catch {
    return "it threw a value that cannot be read";
  }
}

function jsonOrTag(value: object): string {
  try {
    return JSON.stringify(value) ?? Object.prototype.toString.call(value);
  } catch {
    return Object.prototype.toString.call(value);
  }
}
