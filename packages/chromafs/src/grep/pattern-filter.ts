import { GREP_PATTERN_MAX_CHARS } from "../limits.js";
import type { TextFilter } from "../store/doc-store.js";

export type PatternMode = "basic" | "extended" | "fixed";

/**
 * Translates one grep pattern into a `TextFilter` that matches every page holding a matching
 * line (a superset is fine: grep itself runs on the candidates afterwards). The regex uses only
 * syntax Rust's regex crate and ECMAScript (with `u`) read the same way: punctuation as `\xHH`,
 * `[^\n]` for `.`, `\p{..}` classes, `(?:)` groups. Zero-width assertions (`^ $ \b \< \>`) are
 * dropped, which only widens the match and keeps line-vs-chunk anchoring out of the store.
 * Returns null whenever the pattern cannot be translated exactly or wider (back-references,
 * equivalence classes, odd quantifiers...): the caller then scans every file.
 */
export function patternToFilter(
  pattern: string,
  mode: PatternMode,
  caseInsensitive: boolean,
): TextFilter | null {
  if (pattern === "" || pattern.includes("\n") || pattern.length > GREP_PATTERN_MAX_CHARS) return null;
  if (mode === "fixed") return { kind: "contains", text: pattern, caseInsensitive };
  const translated = translate(pattern, mode === "extended");
  if (translated === null) return null;
  if (translated.literal !== null && translated.literal !== "") {
    return { kind: "contains", text: translated.literal, caseInsensitive };
  }
  if (translated.regex === "") return null;
  return { kind: "regex", pattern: translated.regex, caseInsensitive };
}

function hex(char: string): string {
  return `\\x${char.charCodeAt(0).toString(16).padStart(2, "0")}`;
}

/** A literal character in the common syntax: ASCII punctuation as `\xHH`, the rest as is. */
function literal(char: string): string {
  return /^[\x21-\x2f\x3a-\x40\x5b-\x60\x7b-\x7e]$/.test(char) ? hex(char) : char;
}

const CLASSES: Record<string, string> = {
  alpha: "\\p{L}",
  upper: "\\p{L}",
  lower: "\\p{L}",
  alnum: "\\p{L}\\p{N}",
  digit: "0-9",
  xdigit: "0-9A-Fa-f",
  space: "\\s",
  blank: " \\t",
  punct: "\\p{P}\\p{S}",
  cntrl: "\\p{Cc}",
};

/** Parses a bracket expression starting at `start` (the `[`); returns the class and the next index. */
function bracket(pattern: string, start: number): { text: string; next: number } | null {
  let i = start + 1;
  let negated = false;
  if (pattern[i] === "^") {
    negated = true;
    i++;
  }
  const parts: string[] = [];
  let first = true;
  while (i < pattern.length) {
    const char = pattern[i]!;
    if (char === "]" && !first) {
      if (parts.length === 0) return null;
      return { text: `[${negated ? "^" : ""}${parts.join("")}]`, next: i + 1 };
    }
    first = false;
    if (char === "[" && (pattern[i + 1] === "=" || pattern[i + 1] === ".")) return null;
    if (char === "[" && pattern[i + 1] === ":") {
      const end = pattern.indexOf(":]", i + 2);
      if (end === -1) return null;
      const mapped = CLASSES[pattern.slice(i + 2, end)];
      if (mapped === undefined) return null;
      parts.push(mapped);
      i = end + 2;
      continue;
    }
    const code = pattern.codePointAt(i)!;
    const one = String.fromCodePoint(code);
    i += one.length;
    if (pattern[i] === "-" && pattern[i + 1] !== undefined && pattern[i + 1] !== "]") {
      const endCode = pattern.codePointAt(i + 1)!;
      const end = String.fromCodePoint(endCode);
      if (end === "[" || endCode < code) return null;
      parts.push(`${literal(one)}-${literal(end)}`);
      i += 1 + end.length;
      continue;
    }
    parts.push(literal(one));
  }
  return null;
}

/**
 * Walks the pattern once. `literal` stays non-null while everything seen is plain text, so such
 * patterns become `contains` filters (cheaper for a database than a regex).
 */
function translate(pattern: string, extended: boolean): { regex: string; literal: string | null } | null {
  let out = "";
  let text: string | null = "";
  /** Whether the last emitted item can take a quantifier (an atom, not an anchor or `(`/`|`). */
  let quantifiable = false;
  /** At the start of the pattern or of an alternative/group (BRE: `*` is literal there). */
  let atStart = true;
  let depth = 0;

  const atom = (regex: string, plain: string | null) => {
    out += regex;
    text = text !== null && plain !== null ? text + plain : null;
    quantifiable = true;
    atStart = false;
  };
  const structure = (regex: string) => {
    out += regex;
    text = null;
    quantifiable = false;
  };
  const quantifier = (regex: string): boolean => {
    if (!quantifiable) return false;
    out += regex;
    text = null;
    quantifiable = false;
    return true;
  };
  const interval = (from: number, closing: string): { regex: string; next: number } | null => {
    const end = pattern.indexOf(closing, from);
    if (end === -1) return null;
    const match = /^(\d*)(,?)(\d*)$/.exec(pattern.slice(from, end));
    if (!match || (match[1] === "" && match[3] === "")) return null;
    const low = match[1] === "" ? "0" : match[1]!;
    if (match[3] !== "" && Number(match[3]) < Number(low)) return null;
    return { regex: `{${low}${match[2]}${match[3]}}`, next: end + closing.length };
  };

  for (let i = 0; i < pattern.length; ) {
    const char = pattern[i]!;
    if (char === "\\") {
      const next = pattern[i + 1];
      if (next === undefined) return null;
      i += 2;
      if (!extended && next === "(") {
        structure("(?:");
        depth++;
        atStart = true;
      } else if (!extended && next === ")") {
        if (depth === 0) return null;
        depth--;
        structure(")");
        quantifiable = true;
        atStart = false;
      } else if (!extended && next === "|") {
        structure("|");
        atStart = true;
      } else if (!extended && (next === "+" || next === "?")) {
        if (!quantifier(next)) return null;
      } else if (!extended && next === "{") {
        const parsed = interval(i, "\\}");
        if (!parsed || !quantifier(parsed.regex)) return null;
        i = parsed.next;
      } else if (next === "w") atom("[\\p{L}\\p{N}_]", null);
      else if (next === "W") atom("[^\\p{L}\\p{N}_]", null);
      else if (next === "s") atom("\\s", null);
      else if (next === "S") atom("\\S", null);
      else if ("bB<>`'".includes(next)) {
        text = null;
        quantifiable = false;
      } else if (/[\x21-\x2f\x3a-\x40\x5b-\x60\x7b-\x7e]/.test(next)) atom(hex(next), next);
      else return null;
      continue;
    }
    if (char === "[") {
      const parsed = bracket(pattern, i);
      if (!parsed) return null;
      atom(parsed.text, null);
      i = parsed.next;
      continue;
    }
    if (char === ".") {
      atom("[^\\n]", null);
      i++;
      continue;
    }
    if (char === "*") {
      if (atStart && !extended) atom(hex("*"), "*");
      else if (!quantifier("*")) return null;
      i++;
      continue;
    }
    if (char === "^") {
      if (extended || atStart) {
        text = null;
        quantifiable = false;
      } else atom(hex("^"), "^");
      i++;
      continue;
    }
    if (char === "$") {
      const atEnd =
        i === pattern.length - 1 ||
        (!extended && (pattern.startsWith("\\)", i + 1) || pattern.startsWith("\\|", i + 1)));
      if (extended || atEnd) {
        text = null;
        quantifiable = false;
      } else atom(hex("$"), "$");
      i++;
      continue;
    }
    if (extended) {
      if (char === "+" || char === "?") {
        if (!quantifier(char)) return null;
        i++;
        continue;
      }
      if (char === "{") {
        const parsed = interval(i + 1, "}");
        if (!parsed || !quantifier(parsed.regex)) return null;
        i = parsed.next;
        continue;
      }
      if (char === "(") {
        structure("(?:");
        depth++;
        atStart = true;
        i++;
        continue;
      }
      if (char === ")") {
        if (depth === 0) return null;
        depth--;
        structure(")");
        quantifiable = true;
        atStart = false;
        i++;
        continue;
      }
      if (char === "|") {
        structure("|");
        atStart = true;
        i++;
        continue;
      }
    }
    const code = pattern.codePointAt(i)!;
    const one = String.fromCodePoint(code);
    atom(literal(one), one);
    i += one.length;
  }
  if (depth !== 0) return null;
  return { regex: out, literal: text };
}
