import type { TextFilter } from "../../doc-store/doc-store.js";
import { regexLiteral } from "../../doc-store/regex-literal.js";
import { filterLiterals } from "../../doc-store/text-filter-matcher.js";
import { DEFAULT_CHROMAFS_LIMITS } from "../../limits.js";
import { type BracketItem, repeatText, tokenizeGnuRegex } from "../gnu/gnu-regex.js";
import { requiredLiterals } from "./required-literals.js";

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
  if (
    pattern === "" ||
    pattern.includes("\n") ||
    pattern.length > DEFAULT_CHROMAFS_LIMITS.maxGrepPatternChars
  )
    return null;
  if (mode === "fixed") return { kind: "contains", text: pattern, caseInsensitive };
  const translated = translate(pattern, mode === "extended");
  if (translated === null) return null;
  if (translated.literal !== null && translated.literal !== "") {
    return { kind: "contains", text: translated.literal, caseInsensitive };
  }
  if (translated.regex === "") return null;
  const filter: TextFilter = { kind: "regex", pattern: translated.regex, caseInsensitive };
  return translated.literals ? { ...filter, literals: translated.literals } : filter;
}

/**
 * A filter matching every page that holds a line matching any of `patterns` (GNU's several
 * patterns: `-e` repeated, or one per line): the patterns' filters joined as alternatives.
 * Null when one of them cannot be translated.
 */
export function patternsToFilter(
  patterns: readonly string[],
  mode: PatternMode,
  caseInsensitive: boolean,
): TextFilter | null {
  const filters: TextFilter[] = [];
  for (const pattern of patterns) {
    const filter = patternToFilter(pattern, mode, caseInsensitive);
    if (!filter) return null;
    filters.push(filter);
  }
  if (filters.length <= 1) return filters[0] ?? null;
  const alternatives = filters.map((filter) =>
    filter.kind === "contains" ? Array.from(filter.text, literal).join("") : `(?:${filter.pattern})`,
  );
  const pattern = alternatives.join("|");
  if (pattern.length > 4 * DEFAULT_CHROMAFS_LIMITS.maxGrepPatternChars) return null;
  const each = filters.map(filterLiterals);
  return each.every((literals) => literals !== null)
    ? { kind: "regex", pattern, caseInsensitive, literals: each.flat() }
    : { kind: "regex", pattern, caseInsensitive };
}

/** A literal character in the common syntax (`regexLiteral`). */
function literal(char: string): string {
  return regexLiteral(char);
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

/** A bracket expression as a class in the common syntax; null for a class it does not spell. */
function bracket(negated: boolean, items: readonly BracketItem[]): string | null {
  const parts: string[] = [];
  for (const item of items) {
    if (item.kind === "class") {
      const mapped = CLASSES[item.name];
      if (mapped === undefined) return null;
      parts.push(mapped);
    } else if (item.kind === "range") parts.push(`${literal(item.from)}-${literal(item.to)}`);
    else parts.push(literal(item.char));
  }
  return `[${negated ? "^" : ""}${parts.join("")}]`;
}

const CLASS_ESCAPES: Record<string, string> = {
  w: "[\\p{L}\\p{N}_]",
  W: "[^\\p{L}\\p{N}_]",
  s: "\\s",
  S: "\\S",
};

/**
 * Walks the pattern's tokens once. `text` stays non-null while everything seen is plain text, so
 * such patterns become `contains` filters (cheaper for a database than a regex).
 */
function translate(
  pattern: string,
  extended: boolean,
): { regex: string; literal: string | null; literals: string[] | null } | null {
  const tokens = tokenizeGnuRegex(pattern, extended);
  if (!tokens) return null;
  let out = "";
  let text: string | null = "";
  /** Whether the last emitted item can take a quantifier (an atom, not an anchor or `(`/`|`). */
  let quantifiable = false;
  for (const token of tokens) {
    if (token.kind !== "literal") text = null;
    switch (token.kind) {
      case "literal":
        if (text !== null) text += token.char;
        out += literal(token.char);
        quantifiable = true;
        break;
      case "any":
        out += "[^\\n]";
        quantifiable = true;
        break;
      case "bracket": {
        const regex = bracket(token.negated, token.items);
        if (regex === null) return null;
        out += regex;
        quantifiable = true;
        break;
      }
      case "class-escape":
        out += CLASS_ESCAPES[token.letter];
        quantifiable = true;
        break;
      case "repeat":
        if (!quantifiable) return null;
        out += repeatText(token.min, token.max);
        quantifiable = false;
        break;
      case "open":
        out += "(?:";
        quantifiable = false;
        break;
      case "close":
        out += ")";
        quantifiable = true;
        break;
      case "alternation":
        out += "|";
        quantifiable = false;
        break;
      // Zero-width assertions are dropped (a wider match); back-references can't be matched.
      case "assertion":
        quantifiable = false;
        break;
      case "backref":
        return null;
    }
  }
  return { regex: out, literal: text, literals: requiredLiterals(tokens) };
}
