import { ConfigError } from "@atrium/spec";

/**
 * The one shape every package's `limits.ts` takes (after just-bash's `src/limits.ts`): an
 * interface of numeric fields, one frozen defaults record, and `resolve…Limits(partial)` built on
 * `resolveLimitValues`, so a bad override is refused the same way everywhere, naming the field.
 */

/**
 * "count": a positive integer (items, bytes, characters, attempts).
 * "duration": a positive finite number of milliseconds.
 */
export type LimitKind = "count" | "duration";

/** The kind of every field of a limits interface: the check `resolveLimitValues` applies. */
export type LimitKinds<Limits> = { readonly [Field in keyof Limits]-?: LimitKind };

/**
 * `defaults` with the fields `partial` sets (undefined fields keep their default), every given
 * value checked against its kind, the result frozen. A field that is not a known limit is refused
 * too, so a misspelt override cannot silently leave the default in force. `owner` names the
 * package in messages, e.g. "@atrium/mcp".
 */
export function resolveLimitValues<Limits extends { readonly [Field in keyof Limits]: number }>(
  owner: string,
  defaults: Readonly<Limits>,
  kinds: LimitKinds<Limits>,
  partial: Partial<Limits> = {},
): Readonly<Limits> {
  if (typeof partial !== "object" || partial === null) {
    throw new ConfigError(`${owner} limits must be an object of numbers, got ${describe(partial)}`);
  }
  const resolved: Record<string, number> = { ...defaults };
  for (const [field, value] of Object.entries(partial)) {
    const kind = (kinds as Record<string, LimitKind | undefined>)[field];
    if (kind === undefined || !Object.hasOwn(kinds, field)) {
      throw new ConfigError(
        `${owner} has no limit ${JSON.stringify(field)}; known limits: ${Object.keys(kinds).join(", ")}`,
      );
    }
    if (value === undefined) continue;
    if (!isValid(kind, value)) {
      const wanted = kind === "count" ? "a positive integer" : "a positive finite number of milliseconds";
      throw new ConfigError(`${owner} limit ${field} must be ${wanted}, got ${describe(value)}`);
    }
    resolved[field] = value as number;
  }
  return Object.freeze(resolved) as unknown as Readonly<Limits>;
}

function isValid(kind: LimitKind, value: unknown): boolean {
  if (typeof value !== "number" || !Number.isFinite(value) || value <= 0) return false;
  return kind === "duration" || Number.isInteger(value);
}

function describe(value: unknown): string {
  if (typeof value === "number" || value === undefined) return String(value);
  if (typeof value === "bigint") return `${value}n`;
  try {
    return JSON.stringify(value) ?? typeof value;
  } catch {
    return typeof value;
  }
}
