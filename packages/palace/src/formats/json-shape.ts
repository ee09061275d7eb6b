/**
 * Reading untyped JSON from exports: narrowing helpers and the JSON paths that problems name
 * (`$[3].chat_messages[2]`), so a user can find the offending value with `jq`.
 */

export type JsonRecord = Record<string, unknown>;

export function isRecord(value: unknown): value is JsonRecord {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The string at `record[key]`, or undefined when absent or not a string. */
export function stringField(record: JsonRecord, key: string): string | undefined {
  const value = record[key];
  return typeof value === "string" ? value : undefined;
}

/** `base` extended by an index or a key, in jq's notation. */
export function jsonPath(base: string, step: number | string): string {
  if (typeof step === "number") return `${base}[${step}]`;
  return /^[A-Za-z_][A-Za-z0-9_]*$/.test(step) ? `${base}.${step}` : `${base}[${JSON.stringify(step)}]`;
}

/** The value's JSON type as a user would name it. */
export function jsonType(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return typeof value === "object" ? "an object" : `a ${typeof value}`;
}
