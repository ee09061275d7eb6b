/**
 * How names become lookup keys. Entities are matched ignoring case, Unicode compatibility forms
 * and runs of whitespace ("caroline", " Caroline ", "CAROLINE" are one person); predicates are
 * folded to lower_snake_case so "lives in", "Lives-In" and "lives_in" are one relation.
 */

/** The display form of a name: compatibility-normalized, trimmed, inner whitespace collapsed. */
export function cleanName(name: string): string {
  return name.normalize("NFKC").trim().replace(/\s+/gu, " ");
}

/** The key an entity name or alias is stored and looked up under. */
export function entityKey(name: string): string {
  return cleanName(name).toLowerCase();
}

/**
 * What separates the wing from the name in a stored key. SQLite palaces have always used NUL;
 * PostgreSQL's text cannot hold NUL, so there it is U+001F (unit separator). Neither wing names
 * nor entity names may hold a control character, so either keeps the prefix unforgeable.
 */
export const KEY_SEPARATORS = { sqlite: "\u0000", postgres: "\u001f" } as const;

/**
 * An entity's or alias's stored key: its wing, the store's separator (see `KEY_SEPARATORS`), then
 * `entityKey`. Wing names hold no control characters, so the prefix cannot be forged by a name.
 */
export function wingKey(wing: string, name: string, separator: string = KEY_SEPARATORS.sqlite): string {
  return `${wing}${separator}${entityKey(name)}`;
}

/** A predicate in its stored form: lower_snake_case. */
export function normalizePredicate(predicate: string): string {
  return predicate
    .normalize("NFKC")
    .trim()
    .toLowerCase()
    .replace(/[\s-]+/gu, "_");
}

/** Letters, digits, underscores, plus `.` and `:` for namespaced predicates ("schema:knows"). */
export const PREDICATE_PATTERN = /^[\p{L}\p{N}_.:]+$/u;

/** Control characters never belong in a name; they would break the rendered fact lines. */
export const CONTROL_CHARACTERS = /\p{Cc}/u;
