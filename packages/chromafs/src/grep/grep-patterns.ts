import type { PatternMode } from "./accelerate/pattern-filter.js";
import { type BracketItem, repeatText, tokenizeGnuRegex } from "./gnu/gnu-regex.js";

/**
 * GNU grep patterns rewritten for just-bash 3.4.2's grep, whose own handling is wrong in two
 * ways: it keeps only the last `-e`, and its BRE reads `\+` and `\?` as literals. Each pattern
 * (a newline inside one starts another, as in GNU) is translated into the ERE dialect just-bash
 * hands to RE2 (`-E`), and the translations are joined with `|`, which is how GNU itself treats
 * several patterns. Only what this file knows to mean the same in both is translated; anything
 * else makes the whole rewrite refuse (see `rewritePatterns`).
 */

/** Characters RE2 (and just-bash's ERE pre-pass) read as syntax outside a bracket expression. */
const ERE_SPECIAL = new Set(["\\", ".", "+", "*", "?", "(", ")", "[", "]", "{", "}", "|", "^", "$"]);

/**
 * POSIX classes, spelled as just-bash's own bracket pre-pass spells them (ASCII ranges), so a
 * class means what it meant to just-bash's grep before; `digit`, `xdigit` and `blank` are
 * also exactly GNU's in a UTF-8 locale.
 */
const CLASSES: Record<string, string> = {
  alpha: "a-zA-Z",
  digit: "0-9",
  alnum: "a-zA-Z0-9",
  lower: "a-z",
  upper: "A-Z",
  xdigit: "0-9A-Fa-f",
  space: " \\t\\n\\r\\f\\v",
  blank: " \\t",
  punct: "!-/:-@\\[-`{-~",
  graph: "!-~",
  print: " -~",
  cntrl: "\\x00-\\x1F\\x7F",
};

/** RE2 refuses larger repetition counts (GNU allows up to 32767). */
const MAX_REPEAT = 1000;

/** One literal character inside an RE2 bracket expression. */
function escapeInBracket(char: string): string {
  return "\\]^-[!".includes(char) ? `\\${char}` : char;
}

/** A bracket expression as an RE2 class; null for a class name this file does not spell. */
function bracketToEre(negated: boolean, items: readonly BracketItem[]): string | null {
  let out = negated ? "[^" : "[";
  for (const item of items) {
    if (item.kind === "class") {
      const mapped = CLASSES[item.name];
      if (mapped === undefined) return null;
      out += mapped;
    } else if (item.kind === "range") out += `${escapeInBracket(item.from)}-${escapeInBracket(item.to)}`;
    else out += escapeInBracket(item.char);
  }
  return `${out}]`;
}

export interface Translated {
  ere: string;
  /** The text the pattern matches when it is plain text (no operator, anchor or class). */
  plain: string | null;
}

/**
 * One GNU BRE or ERE pattern (without newlines) as just-bash's ERE, meaning the same; null when
 * the pattern uses something not translated exactly (back-references, `\<`, `\>`, stray escapes
 * of letters, a quantifier with nothing to repeat, repeats over RE2's limit...).
 */
export function gnuToEre(pattern: string, mode: "basic" | "extended"): Translated | null {
  const tokens = tokenizeGnuRegex(pattern, mode === "extended");
  if (!tokens) return null;
  let out = "";
  let plain: string | null = "";
  /** Where the last atom starts in `out` (-1: nothing a quantifier can apply to). */
  let atomStart = -1;
  /** Whether the last atom already carries a quantifier (a second one needs a group). */
  let quantified = false;
  const groups: number[] = [];
  const emit = (text: string, start: number) => {
    atomStart = start;
    quantified = false;
    out += text;
  };
  for (const token of tokens) {
    if (token.kind !== "literal") plain = null;
    switch (token.kind) {
      case "literal":
        if (plain !== null) plain += token.char;
        emit(ERE_SPECIAL.has(token.char) ? `\\${token.char}` : token.char, out.length);
        break;
      case "any":
        emit(".", out.length);
        break;
      case "bracket": {
        const text = bracketToEre(token.negated, token.items);
        if (text === null) return null;
        emit(text, out.length);
        break;
      }
      // `\w \W \s \S \b \B` go to RE2 as they are (ASCII classes and boundaries): they mean
      // exactly what they meant to just-bash's grep before.
      case "class-escape":
        emit(`\\${token.letter}`, out.length);
        break;
      case "assertion":
        if (!"^$bB".includes(token.text)) return null;
        out += token.text.length === 1 && "bB".includes(token.text) ? `\\${token.text}` : token.text;
        atomStart = -1;
        break;
      case "repeat":
        if (atomStart === -1 || token.min > MAX_REPEAT || (token.max ?? 0) > MAX_REPEAT) return null;
        if (quantified) out = `${out.slice(0, atomStart)}(?:${out.slice(atomStart)})`;
        out += repeatText(token.min, token.max);
        quantified = true;
        break;
      case "open":
        groups.push(out.length);
        out += "(";
        atomStart = -1;
        break;
      case "close":
        emit(")", groups.pop()!);
        break;
      case "alternation":
        out += "|";
        atomStart = -1;
        break;
      case "backref":
        return null;
    }
  }
  return { ere: out, plain };
}

/** The pattern text one `-e`/operand stands for, as GNU splits it: one pattern per line. */
export function splitPatterns(sources: readonly string[]): string[] {
  return sources.flatMap((source) => source.split("\n"));
}

export interface PatternRewrite {
  /** The pattern operand for just-bash's grep. */
  pattern: string;
  /** Whether that pattern is ERE for `-E` (replacing `-E`/`-G`), or in the original mode. */
  extended: boolean;
}

/** Longest first: at one position RE2 takes the first alternative, GNU the longest match. */
const longestFirst = (a: string, b: string) => b.length - a.length;

/**
 * What to hand just-bash's grep instead of `sources` (every `-e` or the pattern operand, in
 * order), or null to leave the command line as it is (one pattern it already reads right).
 * Fixed strings: one per line in one `-e`, which just-bash combines exactly (`fgrep` has to stay
 * `-F`: just-bash's own `fgrep` is what runs it). BRE/ERE all translated: their ERE joined by
 * `|`. Otherwise, with several sources: the sources joined by newlines in one `-e`, which
 * just-bash does combine (each pattern then means what it meant to just-bash before). Plain-text
 * alternatives go longest first, so `-o` prints the longest match at a position, as GNU does.
 */
export function rewritePatterns(sources: readonly string[], mode: PatternMode): PatternRewrite | null {
  const patterns = splitPatterns(sources);
  if (mode === "fixed") {
    const pattern = [...patterns].sort(longestFirst).join("\n");
    return sources.length === 1 && pattern === sources[0] ? null : { pattern, extended: false };
  }
  const translated = patterns.map((pattern) => gnuToEre(pattern, mode));
  if (translated.every((one) => one !== null)) {
    const plain = translated.every((one) => one.plain !== null);
    const joined = (plain ? [...translated].sort((a, b) => longestFirst(a.plain!, b.plain!)) : translated)
      .map((one) => one.ere)
      .join("|");
    return sources.length === 1 && joined === sources[0] ? null : { pattern: joined, extended: true };
  }
  if (sources.length === 1) return null;
  return { pattern: sources.join("\n"), extended: false };
}
