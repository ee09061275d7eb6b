import { type PatternRewrite, rewritePatterns, splitPatterns } from "./grep-patterns.js";

/**
 * grep's command line, parsed with the same grammar as just-bash's grep (so the accelerator and
 * the real grep agree on what is a flag, a pattern and a file), and rewritten where just-bash
 * reads GNU's meaning wrong: `--include GLOB`, `--exclude GLOB`, `--exclude-dir DIR` become
 * `--opt=GLOB`; several patterns or a BRE just-bash misreads become one ERE (see
 * `rewritePatterns`); `-G`, `--color=never|auto`, and `-s` (which the command applies itself)
 * are taken out.
 */
export interface GrepArgs {
  /** Option tokens (with their values) for just-bash's grep, without the pattern operand and files. */
  options: string[];
  /** The pattern operand for just-bash's grep (undefined when it comes through `-e`). */
  positionalPattern: string | undefined;
  /** GNU's patterns, one per line of every `-e` or the pattern operand (what the store narrows by). */
  patterns: string[];
  files: string[];
  /** How many file operands the command line had (GNU prints names when more than one). */
  operandCount: number;
  patternFiles: number;
  /** GNU's mode of `patterns` (just-bash may get `-E` and a translation instead). */
  mode: "basic" | "extended" | "fixed" | "perl";
  ignoreCase: boolean;
  recursive: boolean;
  noFilename: boolean;
  quiet: boolean;
  /** `-s`: no messages about missing or unreadable files. */
  noMessages: boolean;
  /** `-v`, `-c`, `-L`: grep reports on files (or lines) that do not match too. */
  needsEveryFile: boolean;
  /** `-v`: the lines printed are the ones that do not match, so grep needs whole pages. */
  invert: boolean;
  /** `-A`/`-B`/`-C`: lines around a match are printed too, so grep needs whole pages. */
  context: boolean;
  excludeDirs: number;
  /** `--include`/`--exclude` globs (matched against file base names). */
  includes: string[];
  excludes: string[];
  /** Something just-bash's grep would reject or treat specially (help, unknown flag). */
  unusual: boolean;
}

const SEPARATE_VALUE_OPTIONS = new Set(["--include", "--exclude", "--exclude-dir"]);
/** GNU's colour switches that print plain text when standard output is not a terminal. */
const PLAIN_COLOR = /^--colou?r(=(never|auto|none|no|tty|if-tty))?$/;
const MODE_FLAGS = new Set(["E", "G", "--extended-regexp", "--basic-regexp"]);

/** One option as given: plain tokens, or a flag bundle rebuilt once the pattern rewrite is known. */
type OptionItem = { tokens: string[] } | { flags: string[] };

/** The command line for just-bash's grep: options, `--`, the pattern operand, the files. */
export function grepCommandLine(parsed: GrepArgs, files: readonly string[] = parsed.files): string[] {
  const pattern = parsed.positionalPattern === undefined ? [] : [parsed.positionalPattern];
  return [...parsed.options, "--", ...pattern, ...files];
}

/**
 * Parses (and rewrites) a grep command line; `dropRecursion` takes `-r` out, for a single file
 * operand, which GNU prints without its name where just-bash's `-r` names it.
 */
export function parseGrepArgs(args: readonly string[], dropRecursion = false): GrepArgs {
  const items: OptionItem[] = [];
  const operands: string[] = [];
  /** Every `-e` value, and where its `-e` item is (so a rewrite can take it out). */
  const sources: string[] = [];
  const sourceItems = new Set<OptionItem>();
  const parsed: GrepArgs = {
    options: [],
    positionalPattern: undefined,
    patterns: [],
    files: [],
    operandCount: 0,
    patternFiles: 0,
    mode: "basic",
    ignoreCase: false,
    recursive: false,
    noFilename: false,
    quiet: false,
    noMessages: false,
    needsEveryFile: false,
    invert: false,
    context: false,
    excludeDirs: 0,
    includes: [],
    excludes: [],
    unusual: false,
  };
  let extended = false;
  let fixed = false;
  let perl = false;
  let parseOptions = true;
  const option = (...tokens: string[]) => {
    items.push({ tokens });
    const glob = /^--(include|exclude)=(.*)$/s.exec(tokens[0]!);
    if (glob) (glob[1] === "include" ? parsed.includes : parsed.excludes).push(glob[2]!);
  };

  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (parseOptions && arg === "--") {
      parseOptions = false;
      continue;
    }
    if (!parseOptions || !arg.startsWith("-") || arg === "-") {
      operands.push(arg);
      continue;
    }
    if (SEPARATE_VALUE_OPTIONS.has(arg) && i + 1 < args.length) {
      const value = args[++i]!;
      if (arg === "--exclude-dir") parsed.excludeDirs++;
      option(`${arg}=${value}`);
      continue;
    }
    if (arg === "-e" && i + 1 < args.length) {
      sources.push(args[++i]!);
      option(arg, sources[sources.length - 1]!);
      sourceItems.add(items[items.length - 1]!);
      continue;
    }
    if (PLAIN_COLOR.test(arg)) continue;
    if (/^--(include|exclude)=/.test(arg) || /^--max-count=/.test(arg) || /^-m\d+$/.test(arg)) {
      option(arg);
      continue;
    }
    if (arg.startsWith("--exclude-dir=")) {
      parsed.excludeDirs++;
      option(arg);
      continue;
    }
    if (arg.startsWith("--file=")) {
      parsed.patternFiles++;
      option(arg);
      continue;
    }
    if (/^-[ABC]\d+$/.test(arg)) {
      parsed.context = true;
      option(arg);
      continue;
    }
    if ((arg === "-m" || arg === "-A" || arg === "-B" || arg === "-C") && i + 1 < args.length) {
      if (arg !== "-m") parsed.context = true;
      option(arg, args[++i]!);
      continue;
    }
    const flags = arg.startsWith("--") ? [arg] : arg.slice(1).split("");
    const kept: string[] = [];
    let raw: string[] | null = null;
    for (let f = 0; f < flags.length; f++) {
      const flag = flags[f]!;
      if (flag === "f" || flag === "--file") {
        parsed.patternFiles++;
        raw = [arg];
        if (!(flag === "f" && f + 1 < flags.length) && i + 1 < args.length) raw.push(args[++i]!);
        break;
      }
      kept.push(flag);
      switch (flag) {
        case "i":
        case "--ignore-case":
          parsed.ignoreCase = true;
          break;
        case "r":
        case "R":
        case "--recursive":
          if (dropRecursion) kept.pop();
          else parsed.recursive = true;
          break;
        case "E":
        case "--extended-regexp":
          extended = true;
          break;
        case "F":
        case "--fixed-strings":
          fixed = true;
          break;
        case "G":
        case "--basic-regexp":
          kept.pop();
          break;
        case "P":
        case "--perl-regexp":
          perl = true;
          break;
        case "h":
        case "--no-filename":
          parsed.noFilename = true;
          break;
        case "s":
        case "--no-messages":
          parsed.noMessages = true;
          kept.pop();
          break;
        case "q":
        case "--quiet":
        case "--silent":
          parsed.quiet = true;
          break;
        case "v":
        case "--invert-match":
          parsed.invert = true;
          parsed.needsEveryFile = true;
          break;
        case "c":
        case "--count":
        case "L":
        case "--files-without-match":
          parsed.needsEveryFile = true;
          break;
        case "n":
        case "--line-number":
        case "l":
        case "--files-with-matches":
        case "w":
        case "--word-regexp":
        case "x":
        case "--line-regexp":
        case "o":
        case "--only-matching":
          break;
        default:
          parsed.unusual = true;
      }
    }
    items.push(raw ? { tokens: raw } : { flags: kept });
  }

  if (sources.length === 0 && parsed.patternFiles === 0) {
    parsed.positionalPattern = operands.shift();
    if (parsed.positionalPattern !== undefined) sources.push(parsed.positionalPattern);
  }
  parsed.files = operands;
  parsed.operandCount = operands.length;
  parsed.mode = fixed ? "fixed" : extended ? "extended" : perl ? "perl" : "basic";
  parsed.patterns = splitPatterns(sources);
  const rewrite =
    parsed.unusual || parsed.patternFiles > 0 || parsed.mode === "perl" || sources.length === 0
      ? null
      : rewritePatterns(sources, parsed.mode);
  parsed.options = rebuildOptions(items, rewrite, sourceItems);
  if (rewrite) parsed.positionalPattern = undefined;
  return parsed;
}

/** The option tokens, with the pattern rewrite applied (its `-e` replacing every other one). */
function rebuildOptions(
  items: readonly OptionItem[],
  rewrite: PatternRewrite | null,
  sourceItems: ReadonlySet<OptionItem>,
): string[] {
  const options: string[] = [];
  for (const item of items) {
    if (rewrite && sourceItems.has(item)) continue;
    if ("tokens" in item) {
      options.push(...item.tokens);
      continue;
    }
    const flags = rewrite?.extended ? item.flags.filter((flag) => !MODE_FLAGS.has(flag)) : item.flags;
    const short = flags.filter((flag) => !flag.startsWith("--"));
    if (short.length > 0) options.push(`-${short.join("")}`);
    options.push(...flags.filter((flag) => flag.startsWith("--")));
  }
  if (rewrite?.extended) options.push("-E");
  if (rewrite) options.push("-e", rewrite.pattern);
  return options;
}
