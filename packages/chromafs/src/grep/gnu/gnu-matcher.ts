import { isWordChar, WORD_CLASS } from "./gnu-classes.js";
import {
  groupCount,
  hasBackref,
  type PatternNode,
  type PatternSyntax,
  parsePattern,
  toRegexSource,
} from "./gnu-pattern.js";
import { lineEnd } from "./line-starts.js";
import { charAt, LongestMatcher } from "./longest-match.js";

export interface MatcherOptions {
  syntax: PatternSyntax | "perl";
  ignoreCase: boolean;
  /** `-w`: a match must not touch a word constituent on either side. */
  word: boolean;
  /** `-x`: a match must be the whole line. */
  line: boolean;
}

/**
 * GNU grep's patterns (each one a line of the pattern list) as one matcher: whether a line is
 * selected, and the matches `-o` prints (leftmost-longest, non-empty, left to right).
 */
export interface LineMatcher {
  test(line: string): boolean;
  /** `[start, end)` of each match, in UTF-16 indexes. */
  matches(line: string): [number, number][];
  /**
   * Marks (1) the lines of `text` that hold a match, `starts` being each line's offset: one
   * scan over the whole text, which skips the lines in between at the regex engine's speed.
   */
  markLines(text: string, starts: ArrayLike<number>, marks: Uint8Array): void;
}

/** Null when a pattern uses syntax this matcher does not model (the caller falls back). */
export function compileMatcher(patterns: readonly string[], options: MatcherOptions): LineMatcher | null {
  const flags = options.ignoreCase ? "vi" : "v";
  let trees: PatternNode[] | null = [];
  let sources: string[];
  if (options.syntax === "perl") {
    trees = null;
    sources = [...patterns];
  } else {
    let groups = 0;
    for (const pattern of patterns) {
      const tree = parsePattern(pattern, options.syntax, groups);
      if (!tree) return null;
      groups += groupCount(tree);
      trees.push(tree);
    }
    sources = trees.map(toRegexSource);
  }
  const wrap = (source: string) =>
    options.line
      ? `^(?:${source})$`
      : options.word
        ? `(?<!${WORD_CLASS})(?:${source})(?!${WORD_CLASS})`
        : source;
  let search: RegExp;
  const ascii = asciiLiterals(patterns, options);
  try {
    search =
      ascii !== null
        ? new RegExp(ascii, options.ignoreCase ? "ig" : "g")
        : new RegExp(
            sources.map((source) => `(?:${wrap(source)})`).join("|"),
            `${options.syntax === "perl" ? "u" : flags}g`,
          );
  } catch {
    return null;
  }
  // No class matches a newline (see LINE_CLASSES), so with `m` a match never spans lines.
  const scan =
    options.syntax === "perl"
      ? null
      : new RegExp(search.source, ascii !== null ? `${search.flags}m` : `${flags}gm`);
  const longest =
    trees && !trees.some(hasBackref) && (trees.length > 1 || trees.some(mayPreferShorter))
      ? LongestMatcher.build(options.line ? trees.map((tree) => anchored(tree)) : trees, flags)
      : null;
  const accept = options.word
    ? (line: string) => (end: number) => !isWordChar(charAt(line, end))
    : () => () => true;
  const test = (line: string) => {
    search.lastIndex = 0;
    return search.test(line);
  };
  return {
    test,
    markLines(text, starts, marks) {
      const count = marks.length;
      if (!scan) {
        for (let index = 0; index < count; index++) {
          const end = index + 1 < starts.length ? starts[index + 1]! - 1 : text.length;
          if (test(text.slice(starts[index]!, end))) marks[index] = 1;
        }
        return;
      }
      let line = 0;
      scan.lastIndex = 0;
      while (line < count) {
        const match = scan.exec(text);
        if (!match) return;
        while (line + 1 < count && starts[line + 1]! <= match.index) line++;
        // An empty match after the last newline is on no line.
        if (match.index > lineEnd(text, starts, line)) return;
        marks[line] = 1;
        line++;
        if (line >= count) return;
        scan.lastIndex = starts[line]!;
      }
    },
    matches(line) {
      const found: [number, number][] = [];
      let from = 0;
      while (from <= line.length) {
        search.lastIndex = from;
        const match = search.exec(line);
        if (!match) break;
        const start = match.index;
        let end = start + match[0].length;
        if (longest) {
          const longer = longest.longestEnd(line, start, accept(line));
          if (longer > end) end = longer;
        }
        if (end > start) {
          found.push([start, end]);
          from = end;
        } else from = start + (charAt(line, start)?.length ?? 1);
      }
      return found;
    },
  };
}

/** Characters that make a BRE (or ERE) pattern more than plain text. */
const SPECIAL = { basic: /[\\.*^$[]/, extended: /[\\.*^$[+?(){}|]/ } as const;

/**
 * Plain ASCII text patterns without `-w`/`-x` as one regex in JavaScript's plain (non-Unicode)
 * mode, which V8 searches far faster than a `v`-flag regex; null for anything else. The
 * language is the same: the text is ASCII and matches itself (case-folded by ASCII with -i).
 */
function asciiLiterals(patterns: readonly string[], options: MatcherOptions): string | null {
  if (options.word || options.line || options.syntax === "perl") return null;
  const special = options.syntax === "fixed" ? null : SPECIAL[options.syntax];
  for (const pattern of patterns) {
    if (!/^[\x20-\x7e]*$/.test(pattern) || special?.test(pattern)) return null;
  }
  return patterns.map((pattern) => pattern.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")).join("|");
}

/**
 * Whether backtracking could pick a shorter match than the longest at the same start: only
 * through alternation or a repeated group. A tree of single characters, each repeated or not,
 * matched greedily is already the longest, and needs no automaton.
 */
export function mayPreferShorter(node: PatternNode): boolean {
  switch (node.kind) {
    case "alt":
      return true;
    case "seq":
      return node.items.some(mayPreferShorter);
    case "group":
      return mayPreferShorter(node.body);
    case "repeat":
      return node.body.kind !== "char";
    default:
      return false;
  }
}

function anchored(tree: PatternNode): PatternNode {
  return { kind: "seq", items: [{ kind: "assert", text: "^" }, tree, { kind: "assert", text: "$" }] };
}
