/**
 * grep's command line, parsed with the same grammar as just-bash's grep (so the accelerator and
 * the real grep agree on what is a flag, a pattern and a file), plus the GNU spellings just-bash
 * lacks: `--include GLOB`, `--exclude GLOB`, `--exclude-dir DIR` are rewritten to `--opt=GLOB`.
 */
export interface GrepArgs {
  /** The command line with the separate-argument forms rewritten; what just-bash's grep gets. */
  normalized: string[];
  /** Option tokens (with their values) in order, without the pattern operand and the files. */
  options: string[];
  /** The pattern when given as the first operand (not through `-e`). */
  positionalPattern: string | undefined;
  patterns: string[];
  files: string[];
  patternFiles: number;
  mode: "basic" | "extended" | "fixed" | "perl";
  ignoreCase: boolean;
  recursive: boolean;
  noFilename: boolean;
  /** Flags whose output the store cannot narrow (every file must be read). */
  needsEveryFile: boolean;
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

export function parseGrepArgs(args: readonly string[]): GrepArgs {
  const normalized: string[] = [];
  const options: string[] = [];
  const operands: string[] = [];
  const patterns: string[] = [];
  const parsed: GrepArgs = {
    normalized,
    options,
    positionalPattern: undefined,
    patterns,
    files: [],
    patternFiles: 0,
    mode: "basic",
    ignoreCase: false,
    recursive: false,
    noFilename: false,
    needsEveryFile: false,
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
    normalized.push(...tokens);
    options.push(...tokens);
    const glob = /^--(include|exclude)=(.*)$/s.exec(tokens[0]!);
    if (glob) (glob[1] === "include" ? parsed.includes : parsed.excludes).push(glob[2]!);
  };

  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (parseOptions && arg === "--") {
      parseOptions = false;
      normalized.push(arg);
      continue;
    }
    if (!parseOptions || !arg.startsWith("-") || arg === "-") {
      normalized.push(arg);
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
      patterns.push(args[++i]!);
      option(arg, patterns[patterns.length - 1]!);
      continue;
    }
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
    const tokens = [arg];
    for (let f = 0; f < flags.length; f++) {
      const flag = flags[f]!;
      if (flag === "f" || flag === "--file") {
        parsed.patternFiles++;
        if (!(flag === "f" && f + 1 < flags.length) && i + 1 < args.length) tokens.push(args[++i]!);
        break;
      }
      switch (flag) {
        case "i":
        case "--ignore-case":
          parsed.ignoreCase = true;
          break;
        case "r":
        case "R":
        case "--recursive":
          parsed.recursive = true;
          break;
        case "E":
        case "--extended-regexp":
          extended = true;
          break;
        case "F":
        case "--fixed-strings":
          fixed = true;
          break;
        case "P":
        case "--perl-regexp":
          perl = true;
          break;
        case "h":
        case "--no-filename":
          parsed.noFilename = true;
          break;
        case "v":
        case "--invert-match":
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
        case "q":
        case "--quiet":
        case "--silent":
          break;
        default:
          parsed.unusual = true;
      }
    }
    option(...tokens);
  }

  if (patterns.length === 0 && parsed.patternFiles === 0) {
    parsed.positionalPattern = operands.shift();
    if (parsed.positionalPattern !== undefined) patterns.push(parsed.positionalPattern);
  }
  parsed.files = operands;
  parsed.mode = fixed ? "fixed" : extended ? "extended" : perl ? "perl" : "basic";
  return parsed;
}
