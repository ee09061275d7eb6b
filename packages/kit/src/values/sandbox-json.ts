/**
 * A host value as JSON text for a sandbox (QuickJS, Pyodide, a micro-VM's guest), which only
 * ever receives fresh data it parses itself, never a host object. `JSON.stringify` semantics
 * apply (toJSON honoured, so Dates become ISO strings; undefined and functions dropped inside
 * objects, `null` in arrays); BigInt becomes a decimal string; a cycle is a TypeError. A
 * top-level undefined, function or symbol is undefined: no value.
 */
export function toJsonText(value: unknown): string | undefined {
  if (value === undefined || typeof value === "function" || typeof value === "symbol") return undefined;
  return JSON.stringify(value, bigintAsString);
}

function bigintAsString(_key: string, value: unknown): unknown {
  return typeof value === "bigint" ? value.toString() : value;
}
