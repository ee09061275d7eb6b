import { GNU_CLASSES, WORD_CLASS } from "./gnu-classes.js";
import { type BracketItem, type GnuToken, tokenizeGnuRegex } from "./gnu-regex.js";

/**
 * One GNU grep pattern (BRE, ERE or fixed string) parsed into a tree, from which
 * `gnu-matcher.ts` builds both a JavaScript regex (fast "does this line match?") and a
 * leftmost-longest automaton (what `-o` prints: POSIX takes the longest match at the leftmost
 * position, where a backtracking regex takes its first alternative).
 */
export type PatternNode =
  | { kind: "alt"; items: PatternNode[] }
  | { kind: "seq"; items: PatternNode[] }
  /** One character out of a set, as the body of a `v`-flag class or a lone escape. */
  | { kind: "char"; source: string }
  | { kind: "assert"; text: string }
  | { kind: "group"; body: PatternNode; index: number }
  | { kind: "repeat"; body: PatternNode; min: number; max: number | null }
  | { kind: "backref"; group: number };

export type PatternSyntax = "basic" | "extended" | "fixed";

/** A code point spelled so it means itself anywhere in a `v`-flag regex. */
export function codePointSource(char: string): string {
  return `\\u{${char.codePointAt(0)!.toString(16)}}`;
}

/**
 * Classes as they apply within one line: no class here matches a newline, so a regex over a
 * whole file never matches across lines (`grep-run.ts` scans files whole, GNU's way).
 */
const LINE_CLASSES: Readonly<Record<string, string>> = {
  ...GNU_CLASSES,
  space: GNU_CLASSES.space!.replace("\\n", ""),
  cntrl: "[\\p{Cc}--[\\n]]",
};

function bracketSource(negated: boolean, items: readonly BracketItem[]): string | null {
  let body = "";
  for (const item of items) {
    if (item.kind === "char") body += codePointSource(item.char);
    else if (item.kind === "range") body += `${codePointSource(item.from)}-${codePointSource(item.to)}`;
    else {
      const known = LINE_CLASSES[item.name];
      if (known === undefined) return null;
      body += `[${known}]`;
    }
  }
  // GNU never matches the newline that ends a line; lines given to the matcher have none.
  return negated ? `[^${body}\\n]` : `[${body}]`;
}

const CLASS_ESCAPES: Record<string, string> = {
  w: WORD_CLASS,
  W: `[^${WORD_CLASS}\\n]`,
  s: `[${LINE_CLASSES.space}]`,
  S: `[^${LINE_CLASSES.space}\\n]`,
};

/**
 * The tree of one pattern (no newline in it), or null for syntax the tokenizer does not model
 * (the caller then leaves the command to just-bash's grep, as before). `groupBase` numbers
 * the groups after those of the patterns before it, for back-references.
 */
export function parsePattern(pattern: string, syntax: PatternSyntax, groupBase = 0): PatternNode | null {
  if (syntax === "fixed") {
    return {
      kind: "seq",
      items: [...pattern].map((char) => ({ kind: "char", source: codePointSource(char) })),
    };
  }
  const tokens = tokenizeGnuRegex(pattern, syntax === "extended");
  if (!tokens) return null;
  let at = 0;
  let groups = groupBase;
  const parseAlt = (): PatternNode | null => {
    const items: PatternNode[] = [];
    for (;;) {
      const seq = parseSeq();
      if (!seq) return null;
      items.push(seq);
      if (tokens[at]?.kind !== "alternation") break;
      at++;
    }
    return items.length === 1 ? items[0]! : { kind: "alt", items };
  };
  const parseSeq = (): PatternNode | null => {
    const items: PatternNode[] = [];
    while (at < tokens.length) {
      const token: GnuToken = tokens[at]!;
      if (token.kind === "alternation" || token.kind === "close") break;
      at++;
      if (token.kind === "repeat") {
        const last = items.pop();
        // A repetition with nothing before it is the literal character, as GNU reads it.
        if (!last)
          items.push({
            kind: "char",
            source: codePointSource(token.max === 1 ? "?" : token.min === 1 ? "+" : "*"),
          });
        else items.push({ kind: "repeat", body: last, min: token.min, max: token.max });
        continue;
      }
      const node = atom(token);
      if (node === undefined) return null;
      if (node) items.push(node);
    }
    return { kind: "seq", items };
  };
  const atom = (token: GnuToken): PatternNode | null | undefined => {
    switch (token.kind) {
      case "literal":
        return { kind: "char", source: codePointSource(token.char) };
      case "any":
        return { kind: "char", source: "[^\\n]" };
      case "bracket": {
        const source = bracketSource(token.negated, token.items);
        return source === null ? undefined : { kind: "char", source };
      }
      case "class-escape":
        return { kind: "char", source: CLASS_ESCAPES[token.letter]! };
      case "assertion":
        return { kind: "assert", text: token.text };
      case "backref":
        return { kind: "backref", group: groupBase + token.group };
      case "open": {
        const index = ++groups;
        const body = parseAlt();
        if (!body || tokens[at]?.kind !== "close") return undefined;
        at++;
        return { kind: "group", body, index };
      }
      default:
        return undefined;
    }
  };
  const tree = parseAlt();
  return tree && at === tokens.length ? tree : null;
}

/** How many groups a tree opens (to number the next pattern's). */
export function groupCount(node: PatternNode): number {
  switch (node.kind) {
    case "alt":
    case "seq":
      return node.items.reduce((sum, item) => sum + groupCount(item), 0);
    case "group":
      return 1 + groupCount(node.body);
    case "repeat":
      return groupCount(node.body);
    default:
      return 0;
  }
}

export function hasBackref(node: PatternNode): boolean {
  switch (node.kind) {
    case "alt":
    case "seq":
      return node.items.some(hasBackref);
    case "group":
    case "repeat":
      return hasBackref(node.body);
    case "backref":
      return true;
    default:
      return false;
  }
}

const WORD_BEFORE = `(?<=${WORD_CLASS})`;
const NO_WORD_BEFORE = `(?<!${WORD_CLASS})`;
const WORD_AFTER = `(?=${WORD_CLASS})`;
const NO_WORD_AFTER = `(?!${WORD_CLASS})`;

const ASSERTIONS: Record<string, string> = {
  "^": "^",
  $: "$",
  "`": "^",
  "'": "$",
  "<": `${NO_WORD_BEFORE}${WORD_AFTER}`,
  ">": `${WORD_BEFORE}${NO_WORD_AFTER}`,
  b: `(?:${WORD_BEFORE}${NO_WORD_AFTER}|${NO_WORD_BEFORE}${WORD_AFTER})`,
  B: `(?:${WORD_BEFORE}${WORD_AFTER}|${NO_WORD_BEFORE}${NO_WORD_AFTER})`,
};

/** The tree as `v`-flag JavaScript regex source (same language; backtracking match order). */
export function toRegexSource(node: PatternNode): string {
  switch (node.kind) {
    case "alt":
      return node.items.map(toRegexSource).join("|");
    case "seq":
      return node.items
        .map((item) => (item.kind === "alt" ? `(?:${toRegexSource(item)})` : toRegexSource(item)))
        .join("");
    case "char":
      return node.source.startsWith("[") ? node.source : node.source;
    case "assert":
      return ASSERTIONS[node.text]!;
    case "group":
      return `(${toRegexSource(node.body)})`;
    case "repeat": {
      const { min, max } = node;
      const quantifier =
        max === null
          ? min === 0
            ? "*"
            : min === 1
              ? "+"
              : `{${min},}`
          : min === max
            ? `{${min}}`
            : `{${min},${max}}`;
      return `(?:${toRegexSource(node.body)})${quantifier}`;
    }
    case "backref":
      return `\\${node.group}`;
  }
}
