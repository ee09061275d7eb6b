/**
 * Parses JSON text that came out of the sandbox. `__proto__` keys are dropped, so code that
 * later spreads or assigns the value on the host cannot change an object's prototype.
 */
export function fromJsonText(text: string | undefined): unknown {
  if (text === undefined) return undefined;
  return text.includes('"__proto__"') ? JSON.parse(text, dropProtoKeys) : JSON.parse(text);
}

function dropProtoKeys(key: string, value: unknown): unknown {
  return key === "__proto__" ? undefined : value;
}
