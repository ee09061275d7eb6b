/**
 * What text the palace stores. It keeps text byte-exact, so text SQLite's UTF-8 cannot hold is
 * refused instead of altered: a lone surrogate was stored as U+FFFD, the stored drawer then no
 * longer matched its id, and its export could not be imported. Names (wing, room, hall, source,
 * speaker, turn and session ids) also refuse control characters: drawer ids hash
 * `wing \0 content \0 turn`, so a NUL in a wing made `victim` + `b\0c` and `victim\0b` + `c` one id.
 */

const LONE_SURROGATE = /[\uD800-\uDFFF]/u;
const CONTROL_CHARACTER = /[\u0000-\u001F\u007F]/u;

/** "U+0000 (NUL)" for a character. */
function codePoint(character: string): string {
  const hex = (character.codePointAt(0) as number).toString(16).toUpperCase().padStart(4, "0");
  return character === "\u0000" ? `U+${hex} (NUL)` : `U+${hex}`;
}

/** Why `value` cannot be stored as text (a lone surrogate), or undefined. */
export function textProblem(value: string): string | undefined {
  const match = LONE_SURROGATE.exec(value);
  if (match === null) return undefined;
  return `holds a lone surrogate ${codePoint(match[0])} at index ${match.index}, which UTF-8 cannot store; send well-formed Unicode (pair the surrogate or remove it)`;
}

/** Why `value` cannot be a name (a control character or a lone surrogate), or undefined. */
export function nameProblem(value: string): string | undefined {
  const match = CONTROL_CHARACTER.exec(value);
  if (match !== null) {
    return `holds the control character ${codePoint(match[0])} at index ${match.index}; names cannot hold control characters (U+0000 to U+001F, U+007F), remove it`;
  }
  return textProblem(value);
}
