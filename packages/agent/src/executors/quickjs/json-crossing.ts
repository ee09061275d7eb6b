/**
 * How host values cross into the sandbox (setVariables, tool results): as JSON text, so the
 * sandbox only ever receives fresh data it parses itself, never a host object. `JSON.stringify`
 * semantics apply (toJSON honoured, so Dates become ISO strings; undefined and functions dropped
 * inside objects, `null` in arrays); BigInt becomes a decimal string; a cycle is a TypeError.
 * A top-level undefined stays undefined.
 */
export function toJsonText(value: unknown): string | undefined {
  if (value === undefined || typeof value === "function" || typeof value === "symbol") return undefined;
  return JSON.stringify(value, bigintAsString);
}

/**
 * Parses JSON text that came out of the sandbox. `__proto__` keys are dropped, so code that
 * later spreads or assigns the value on the host cannot change an object's prototype.
 */
export function fromJsonText(text: string | undefined): unknown {
  if (text === undefined) return undefined;
  return text.includes('"__proto__"') ? JSON.parse(text, dropProtoKeys) : JSON.parse(text);
}

function bigintAsString(_key: string, value: unknown): unknown {
  return typeof value === "bigint" ? value.toString() : value;
}

function dropProtoKeys(key: string, value: unknown): unknown {
  return key === "__proto__" ? undefined : value;
}
