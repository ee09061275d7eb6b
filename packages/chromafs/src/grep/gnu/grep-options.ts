import { countValue, defineFlags, type Flag, sets } from "../../flags/flag-table.js";

/**
 * A grep command line, parsed: the one options type of grep and rg (rg maps its flags onto it,
 * see `rg-command.ts`), which ChromaFs's own GNU grep runs and the accelerator narrows.
 */
export interface GrepOptions {
  syntax: "basic" | "extended" | "fixed" | "perl";
  patterns: string[];
  patternFiles: string[];
  ignoreCase: boolean;
  word: boolean;
  line: boolean;
  invert: boolean;
  count: boolean;
  filesWithMatches: boolean;
  filesWithoutMatch: boolean;
  onlyMatching: boolean;
  quiet: boolean;
  noMessages: boolean;
  lineNumber: boolean;
  byteOffset: boolean;
  /** true `-H`, false `-h`, undefined: names when more than one file or recursive. */
  withFilename: boolean | undefined;
  maxCount: number | undefined;
  before: number;
  after: number;
  /** Whether any context option was given (GNU prints `--` between groups then, even for 0). */
  contextGiven: boolean;
  recursive: boolean;
  includes: string[];
  excludes: string[];
  excludeDirs: string[];
  label: string;
  nullAfterName: boolean;
  operands: string[];
}

/**
 * A grep command line this grep models, or one it does not: the first argument it does not
 * take (or "no pattern"), with what it made of the rest and the arguments it left aside
 * (`unknown`, as given), which just-bash's grep then gets.
 */
export type ParsedGrep =
  | { ok: true; options: GrepOptions }
  | { ok: false; unsupported: string; options: GrepOptions; unknown: string[] };

/** What a grep call does when no option says otherwise. */
export function defaultGrepOptions(): GrepOptions {
  return {
    syntax: "basic",
    patterns: [],
    patternFiles: [],
    ignoreCase: false,
    word: false,
    line: false,
    invert: false,
    count: false,
    filesWithMatches: false,
    filesWithoutMatch: false,
    onlyMatching: false,
    quiet: false,
    noMessages: false,
    lineNumber: false,
    byteOffset: false,
    withFilename: undefined,
    maxCount: undefined,
    before: 0,
    after: 0,
    contextGiven: false,
    recursive: false,
    includes: [],
    excludes: [],
    excludeDirs: [],
    label: "(standard input)",
    nullAfterName: false,
    operands: [],
  };
}

/** GNU's colour settings that print plain text when standard output is not a terminal. */
const PLAIN_COLOR = /^(|never|auto|none|no|tty|if-tty)$/;

/** `-m NUM`: stop after NUM selected lines (rg's too). */
export const MAX_COUNT_FLAG: Flag<GrepOptions> = {
  short: "m",
  long: "max-count",
  value: "required",
  apply: (o, v) => countValue(v, (n) => Object.assign(o, { maxCount: n })),
};

/** `-A NUM`, `-B NUM`, `-C NUM`: lines of context after, before, around each match (rg's too). */
export const CONTEXT_FLAGS: readonly Flag<GrepOptions>[] = [
  {
    short: "A",
    long: "after-context",
    value: "required",
    apply: (o, v) => countValue(v, (n) => Object.assign(o, { after: n, contextGiven: true })),
  },
  {
    short: "B",
    long: "before-context",
    value: "required",
    apply: (o, v) => countValue(v, (n) => Object.assign(o, { before: n, contextGiven: true })),
  },
  {
    short: "C",
    long: "context",
    value: "required",
    apply: (o, v) => countValue(v, (n) => Object.assign(o, { after: n, before: n, contextGiven: true })),
  },
];

const GNU_GREP_FLAGS = defineFlags<GrepOptions>(
  [
    { short: "E", long: "extended-regexp", apply: sets({ syntax: "extended" }) },
    { short: "F", long: "fixed-strings", apply: sets({ syntax: "fixed" }) },
    { short: "G", long: "basic-regexp", apply: sets({ syntax: "basic" }) },
    { short: "P", long: "perl-regexp", apply: sets({ syntax: "perl" }) },
    { short: "iy", long: "ignore-case", apply: sets({ ignoreCase: true }) },
    { long: "no-ignore-case", apply: sets({ ignoreCase: false }) },
    { short: "w", long: "word-regexp", apply: sets({ word: true }) },
    { short: "x", long: "line-regexp", apply: sets({ line: true }) },
    { short: "v", long: "invert-match", apply: sets({ invert: true }) },
    { short: "c", long: "count", apply: sets({ count: true }) },
    { short: "l", long: "files-with-matches", apply: sets({ filesWithMatches: true }) },
    { short: "L", long: "files-without-match", apply: sets({ filesWithoutMatch: true }) },
    { short: "o", long: "only-matching", apply: sets({ onlyMatching: true }) },
    { short: "q", long: ["quiet", "silent"], apply: sets({ quiet: true }) },
    { short: "s", long: "no-messages", apply: sets({ noMessages: true }) },
    { short: "n", long: "line-number", apply: sets({ lineNumber: true }) },
    { short: "b", long: "byte-offset", apply: sets({ byteOffset: true }) },
    { short: "H", long: "with-filename", apply: sets({ withFilename: true }) },
    { short: "h", long: "no-filename", apply: sets({ withFilename: false }) },
    { short: "rR", long: ["recursive", "dereference-recursive"], apply: sets({ recursive: true }) },
    { short: "Z", long: "null", apply: sets({ nullAfterName: true }) },
    { short: "aU", long: ["text", "line-buffered"], apply: () => {} },
    { short: "e", long: "regexp", value: "required", apply: (o, v) => void o.patterns.push(v) },
    { short: "f", long: "file", value: "required", apply: (o, v) => void o.patternFiles.push(v) },
    MAX_COUNT_FLAG,
    ...CONTEXT_FLAGS,
    { long: "include", value: "required", apply: (o, v) => void o.includes.push(v) },
    { long: "exclude", value: "required", apply: (o, v) => void o.excludes.push(v) },
    { long: "exclude-dir", value: "required", apply: (o, v) => void o.excludeDirs.push(v) },
    {
      long: "label",
      value: "required",
      apply: (o, v) => {
        o.label = v;
      },
    },
    {
      long: ["color", "colour"],
      value: "optional",
      apply: (_o, v) => (PLAIN_COLOR.test(v) ? undefined : `--color=${v}`),
    },
  ],
  {
    abbreviations: true,
    unknown: "keep",
    digits: (o, digits) =>
      void Object.assign(o, { before: Number(digits), after: Number(digits), contextGiven: true }),
  },
);

/**
 * GNU grep 3.8's command line: short options bundled (`-rn`, `-A3`, `-epat`), long options with
 * `=` or a separate value and unambiguous prefixes, `-NUM` for `-C NUM`, and options after
 * operands (GNU permutes) until `--`; the pattern operand unless `-e` or `-f` gave patterns.
 * Anything else (an option it does not model, a missing or bad value, no pattern) is
 * `unsupported`, and the command is left to just-bash's grep.
 */
export function parseGrepOptions(args: readonly string[]): ParsedGrep {
  const parsed = GNU_GREP_FLAGS.parse(args, defaultGrepOptions());
  if (!parsed.ok) throw new Error(`grep's flag table refused ${parsed.unsupported}`);
  const { options, operands, unknown } = parsed;
  const patternGiven = options.patterns.length > 0 || options.patternFiles.length > 0;
  const pattern = patternGiven ? undefined : operands.shift();
  if (pattern !== undefined) options.patterns.push(pattern);
  options.operands = operands;
  if (unknown.length > 0) return { ok: false, unsupported: unknown[0] as string, options, unknown };
  if (!patternGiven && pattern === undefined)
    return { ok: false, unsupported: "no pattern", options, unknown };
  return { ok: true, options };
}
