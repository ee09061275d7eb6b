/**
 * GNU grep's BRE and ERE syntax, read into tokens once for the translators that spell it for
 * other engines (`pattern-filter.ts` for the store, `grep-patterns.ts` for just-bash's grep). The
 * context rules live here: BRE `\( \) \| \{ \} \+ \?` are operators and `( ) | { } + ?` literals
 * (ERE the other way round); BRE `*` is literal at the start of the pattern, a group or an
 * alternative; BRE `^` anchors only there and `$` only at the end (of the pattern, before `\)` or
 * `\|`); ERE `{` not starting an interval is literal.
 */

export type BracketItem =
  | { kind: "char"; char: string }
  | { kind: "range"; from: string; to: string }
  | { kind: "class"; name: string };

export type GnuToken =
  | { kind: "literal"; char: string }
  | { kind: "any" }
  | { kind: "bracket"; negated: boolean; items: BracketItem[] }
  /** `\w \W \s \S`. */
  | { kind: "class-escape"; letter: string }
  /** `^ $` anchors and `\b \B \< \> \` \'`. */
  | { kind: "assertion"; text: string }
  /** `* + ?` and intervals; `max` null for no upper bound. */
  | { kind: "repeat"; min: number; max: number | null }
  | { kind: "open" }
  | { kind: "close" }
  | { kind: "alternation" }
  | { kind: "backref"; group: number };

const ASCII_PUNCT = /^[\x21-\x2f\x3a-\x40\x5b-\x60\x7b-\x7e]$/;

/**
 * The tokens of one pattern (no newline in it), or null for what GNU rejects or reads in ways
 * not modelled here: a trailing backslash, escaped letters other than the ones listed, bad
 * intervals, unbalanced groups, equivalence classes and collating symbols, an odd `-` or a
 * reversed range in a bracket expression, ERE `{` with nothing before it.
 */
export function tokenizeGnuRegex(pattern: string, extended: boolean): GnuToken[] | null {
  const tokens: GnuToken[] = [];
  let atStart = true;
  let depth = 0;
  const push = (token: GnuToken) => {
    tokens.push(token);
    if (token.kind === "open" || token.kind === "alternation") atStart = true;
    else if (token.kind !== "assertion") atStart = false;
  };
  const interval = (from: number, closing: string): { token: GnuToken; next: number } | null => {
    const end = pattern.indexOf(closing, from);
    if (end === -1) return null;
    const match = /^(\d*)(,?)(\d*)$/.exec(pattern.slice(from, end));
    if (!match || (match[1] === "" && match[2] === "")) return null;
    const min = match[1] === "" ? 0 : Number(match[1]);
    const max = match[2] === "" ? min : match[3] === "" ? null : Number(match[3]);
    if (max !== null && max < min) return null;
    return { token: { kind: "repeat", min, max }, next: end + closing.length };
  };

  for (let i = 0; i < pattern.length; ) {
    const char = pattern[i]!;
    const next = pattern[i + 1];
    if (char === "\\") {
      if (next === undefined) return null;
      i += 2;
      const operator = extended ? null : next;
      if (operator === "(") {
        depth++;
        push({ kind: "open" });
      } else if (operator === ")") {
        if (depth-- === 0) return null;
        push({ kind: "close" });
      } else if (operator === "|") push({ kind: "alternation" });
      else if (operator === "+") push({ kind: "repeat", min: 1, max: null });
      else if (operator === "?") push({ kind: "repeat", min: 0, max: 1 });
      else if (operator === "{") {
        const parsed = interval(i, "\\}");
        if (!parsed) return null;
        push(parsed.token);
        i = parsed.next;
      } else if (/^[1-9]$/.test(next)) push({ kind: "backref", group: Number(next) });
      else if ("wWsS".includes(next)) push({ kind: "class-escape", letter: next });
      else if ("bB<>`'".includes(next)) push({ kind: "assertion", text: next });
      else if (ASCII_PUNCT.test(next)) push({ kind: "literal", char: next });
      else return null;
      continue;
    }
    if (char === "[") {
      const parsed = bracket(pattern, i);
      if (!parsed) return null;
      push(parsed.token);
      i = parsed.next;
      continue;
    }
    i++;
    if (char === ".") push({ kind: "any" });
    else if (char === "*")
      push(atStart && !extended ? { kind: "literal", char } : { kind: "repeat", min: 0, max: null });
    else if (char === "^")
      push(extended || atStart ? { kind: "assertion", text: "^" } : { kind: "literal", char });
    else if (char === "$") {
      const atEnd = i === pattern.length || pattern.startsWith("\\)", i) || pattern.startsWith("\\|", i);
      push(extended || atEnd ? { kind: "assertion", text: "$" } : { kind: "literal", char });
    } else if (extended && char === "+") push({ kind: "repeat", min: 1, max: null });
    else if (extended && char === "?") push({ kind: "repeat", min: 0, max: 1 });
    else if (extended && char === "{" && next !== undefined && /[\d,]/.test(next)) {
      const parsed = interval(i, "}");
      if (!parsed) return null;
      push(parsed.token);
      i = parsed.next;
    } else if (extended && char === "{" && atStart) return null;
    else if (extended && char === "(") {
      depth++;
      push({ kind: "open" });
    } else if (extended && char === ")") {
      if (depth-- === 0) return null;
      push({ kind: "close" });
    } else if (extended && char === "|") push({ kind: "alternation" });
    else {
      const one = String.fromCodePoint(pattern.codePointAt(i - 1)!);
      i += one.length - 1;
      push({ kind: "literal", char: one });
    }
  }
  return depth === 0 ? tokens : null;
}

/** The bracket expression at `start` (the `[`), backslash a literal as in POSIX. */
function bracket(pattern: string, start: number): { token: GnuToken; next: number } | null {
  let i = start + 1;
  const negated = pattern[i] === "^";
  if (negated) i++;
  const body = i;
  const items: BracketItem[] = [];
  /** A `-` is literal only first or last (GNU rejects or reads others differently). */
  const dashAfter = (at: number) => pattern[at] === "-" && pattern[at + 1] !== "]";
  while (i < pattern.length) {
    const char = pattern[i]!;
    if (char === "]" && i > body) {
      if (pattern[body] === ":" && pattern[i - 1] === ":") return null;
      return { token: { kind: "bracket", negated, items }, next: i + 1 };
    }
    if (char === "[" && (pattern[i + 1] === "=" || pattern[i + 1] === ".")) return null;
    if (char === "[" && pattern[i + 1] === ":") {
      const end = pattern.indexOf(":]", i + 2);
      if (end === -1) return null;
      items.push({ kind: "class", name: pattern.slice(i + 2, end) });
      i = end + 2;
      if (dashAfter(i)) return null;
      continue;
    }
    const code = pattern.codePointAt(i)!;
    const one = String.fromCodePoint(code);
    i += one.length;
    if (pattern[i] === "-" && pattern[i + 1] !== "]" && pattern[i + 1] !== undefined) {
      const endCode = pattern.codePointAt(i + 1)!;
      const end = String.fromCodePoint(endCode);
      if (end === "[" || endCode < code) return null;
      items.push({ kind: "range", from: one, to: end });
      i += 1 + end.length;
      if (dashAfter(i)) return null;
      continue;
    }
    if (one === "-" && i - 1 > body && pattern[i] !== "]") return null;
    items.push({ kind: "char", char: one });
  }
  return null;
}

/** A repetition in the syntax RE2, Rust's regex and ECMAScript share. */
export function repeatText(min: number, max: number | null): string {
  if (max === null) return min === 0 ? "*" : min === 1 ? "+" : `{${min},}`;
  if (min === 0 && max === 1) return "?";
  return min === max ? `{${min}}` : `{${min},${max}}`;
}
