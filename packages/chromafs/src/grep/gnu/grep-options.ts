/**
 * GNU grep 3.8's command line: short options bundled (`-rn`, `-A3`, `-epat`), long options with
 * `=` or a separate value and unambiguous prefixes, `-NUM` for `-C NUM`, and options after
 * operands (GNU permutes) until `--`. Anything else is `unsupported`, and the command is left to
 * just-bash's grep.
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

export type ParsedGrep = { ok: true; options: GrepOptions } | { ok: false; unsupported: string };

const LONG_FLAGS: Record<string, Partial<GrepOptions>> = {
  "extended-regexp": { syntax: "extended" },
  "fixed-strings": { syntax: "fixed" },
  "basic-regexp": { syntax: "basic" },
  "perl-regexp": { syntax: "perl" },
  "ignore-case": { ignoreCase: true },
  "no-ignore-case": { ignoreCase: false },
  "word-regexp": { word: true },
  "line-regexp": { line: true },
  "invert-match": { invert: true },
  count: { count: true },
  "files-with-matches": { filesWithMatches: true },
  "files-without-match": { filesWithoutMatch: true },
  "only-matching": { onlyMatching: true },
  quiet: { quiet: true },
  silent: { quiet: true },
  "no-messages": { noMessages: true },
  "line-number": { lineNumber: true },
  "byte-offset": { byteOffset: true },
  "with-filename": { withFilename: true },
  "no-filename": { withFilename: false },
  recursive: { recursive: true },
  "dereference-recursive": { recursive: true },
  null: { nullAfterName: true },
  text: {},
  "line-buffered": {},
};
/** Options with a value: each applies it, or returns what is wrong with it. */
const LONG_VALUES: Record<string, (o: GrepOptions, value: string) => string | null> = {
  regexp: (o, v) => {
    o.patterns.push(v);
    return null;
  },
  file: (o, v) => {
    o.patternFiles.push(v);
    return null;
  },
  "max-count": (o, v) => number(v, (n) => Object.assign(o, { maxCount: n })),
  "after-context": (o, v) => number(v, (n) => Object.assign(o, { after: n, contextGiven: true })),
  "before-context": (o, v) => number(v, (n) => Object.assign(o, { before: n, contextGiven: true })),
  context: (o, v) => number(v, (n) => Object.assign(o, { after: n, before: n, contextGiven: true })),
  include: (o, v) => {
    o.includes.push(v);
    return null;
  },
  exclude: (o, v) => {
    o.excludes.push(v);
    return null;
  },
  "exclude-dir": (o, v) => {
    o.excludeDirs.push(v);
    return null;
  },
  label: (o, v) => {
    o.label = v;
    return null;
  },
  color: (_o, v) => (PLAIN_COLOR.test(v) ? null : `--color=${v}`),
  colour: (_o, v) => (PLAIN_COLOR.test(v) ? null : `--colour=${v}`),
};
/** GNU's colour settings that print plain text when standard output is not a terminal. */
const PLAIN_COLOR = /^(never|auto|none|no|tty|if-tty)$/;
const SHORT_FLAGS: Record<string, string> = {
  E: "extended-regexp",
  F: "fixed-strings",
  G: "basic-regexp",
  P: "perl-regexp",
  i: "ignore-case",
  y: "ignore-case",
  w: "word-regexp",
  x: "line-regexp",
  v: "invert-match",
  c: "count",
  l: "files-with-matches",
  L: "files-without-match",
  o: "only-matching",
  q: "quiet",
  s: "no-messages",
  n: "line-number",
  b: "byte-offset",
  H: "with-filename",
  h: "no-filename",
  r: "recursive",
  R: "dereference-recursive",
  Z: "null",
  a: "text",
  U: "text",
};
const SHORT_VALUES: Record<string, string> = {
  e: "regexp",
  f: "file",
  m: "max-count",
  A: "after-context",
  B: "before-context",
  C: "context",
};

function number(value: string, set: (n: number) => unknown): string | null {
  if (!/^\d+$/.test(value)) return `invalid number ${value}`;
  set(Number(value));
  return null;
}

export function parseGrepOptions(args: readonly string[]): ParsedGrep {
  const o: GrepOptions = {
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
  let explicitPatterns = false;
  const positional: string[] = [];
  let digits = "";
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === "--") {
      positional.push(...args.slice(i + 1));
      break;
    }
    if (!arg.startsWith("-") || arg === "-") {
      positional.push(arg);
      continue;
    }
    if (arg.startsWith("--")) {
      const eq = arg.indexOf("=");
      const given = eq === -1 ? arg.slice(2) : arg.slice(2, eq);
      const names = [...Object.keys(LONG_FLAGS), ...Object.keys(LONG_VALUES)];
      const exact = names.includes(given) ? [given] : names.filter((name) => name.startsWith(given));
      if (exact.length !== 1) return { ok: false, unsupported: arg };
      const name = exact[0]!;
      if (name === "color" || name === "colour") {
        if (eq !== -1 && LONG_VALUES[name]!(o, arg.slice(eq + 1))) return { ok: false, unsupported: arg };
        continue;
      }
      if (LONG_FLAGS[name]) {
        if (eq !== -1) return { ok: false, unsupported: arg };
        Object.assign(o, LONG_FLAGS[name]);
        continue;
      }
      let value: string;
      if (eq !== -1) value = arg.slice(eq + 1);
      else if (i + 1 < args.length) value = args[++i]!;
      else return { ok: false, unsupported: arg };
      if (name === "regexp" || name === "file") explicitPatterns = true;
      if (LONG_VALUES[name]!(o, value)) return { ok: false, unsupported: arg };
      continue;
    }
    for (let f = 1; f < arg.length; f++) {
      const flag = arg[f]!;
      if (/\d/.test(flag)) {
        digits += flag;
        if (!/\d/.test(arg[f + 1] ?? "")) {
          o.before = Number(digits);
          o.after = o.before;
          o.contextGiven = true;
          digits = "";
        }
        continue;
      }
      const long = SHORT_FLAGS[flag];
      if (long) {
        Object.assign(o, LONG_FLAGS[long]);
        continue;
      }
      const valued = SHORT_VALUES[flag];
      if (!valued) return { ok: false, unsupported: `-${flag}` };
      let value: string;
      if (f + 1 < arg.length) value = arg.slice(f + 1);
      else if (i + 1 < args.length) value = args[++i]!;
      else return { ok: false, unsupported: arg };
      if (valued === "regexp" || valued === "file") explicitPatterns = true;
      if (LONG_VALUES[valued]!(o, value)) return { ok: false, unsupported: arg };
      break;
    }
  }
  if (!explicitPatterns) {
    const pattern = positional.shift();
    if (pattern === undefined) return { ok: false, unsupported: "no pattern" };
    o.patterns.push(pattern);
  }
  o.operands = positional;
  return { ok: true, options: o };
}
