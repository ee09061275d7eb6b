import { isWordChar, WORD_CLASS } from "./gnu-classes.js";
import {
  groupCount,
  hasBackref,
  type PatternNode,
  type PatternSyntax,
  parsePattern,
  toRegexSource,
} from "./gnu-pattern.js";
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
  try {
    search = new RegExp(
      sources.map((source) => `(?:${wrap(source)})`).join("|"),
      `${options.syntax === "perl" ? "u" : flags}g`,
    );
  } catch {
    return null;
  }
  const longest =
    trees && !trees.some(hasBackref)
      ? LongestMatcher.build(options.line ? trees.map((tree) => anchored(tree)) : trees, flags)
      : null;
  const accept = options.word
    ? (line: string) => (end: number) => !isWordChar(charAt(line, end))
    : () => () => true;
  return {
    test(line) {
      search.lastIndex = 0;
      return search.test(line);
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

function anchored(tree: PatternNode): PatternNode {
  return { kind: "seq", items: [{ kind: "assert", text: "^" }, tree, { kind: "assert", text: "$" }] };
}
