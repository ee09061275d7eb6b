import type { ExecResult, ResolvedCommandContext } from "just-bash";
import { checkOperands } from "./accelerate/grep-operands.js";
import { spelledFiles } from "./accelerate/grep-plan.js";
import type { GrepOptions, ParsedGrep } from "./gnu/grep-options.js";

export const NO_MATCH: ExecResult = { stdout: "", stderr: "", exitCode: 1 };

/** just-bash's messages about operands it could not read, which `-s` silences. */
const FILE_ERROR = /^grep: .*: (No such file or directory|Is a directory|Not a directory)$/;

/**
 * just-bash's grep, for what ChromaFs's own grep does not model, the command line written in its
 * grammar. One the options parser did not take whole (an option such as `-T`, no pattern) goes
 * with the arguments it left aside, for just-bash to answer. One it parsed but whose patterns
 * the own matcher cannot compile goes with
 * GNU's answers for what it reads differently: operands GNU complains about (missing, a file
 * with a trailing slash, a directory without `-r`) taken out and reported GNU's way, `-r` over a
 * single file dropped (GNU prints no name), several operands narrowed to one still named,
 * recursive operands spelled GNU's way, several patterns in one `-e` (just-bash keeps the last
 * `-e` but reads one pattern per line), and `-s` applied here.
 */
export async function justBashGrep(parsed: ParsedGrep, ctx: ResolvedCommandContext): Promise<ExecResult> {
  const original = ctx.origCommand;
  if (!original) throw new Error("just-bash did not expose the bundled grep to the override");
  const { options } = parsed;
  if (!parsed.ok) {
    const result = await original(justBashArgs(options, options.operands, parsed.unknown));
    return withOperandErrors(result, [], options);
  }
  const checked = await checkOperands(options.operands, ctx.cwd, ctx.fs, options.recursive);
  const { errors } = checked;
  if (errors.length > 0 && checked.files.length === 0) return withOperandErrors(NO_MATCH, errors, options);
  const several = options.operands.length > 1;
  // `grep -r x FILE`: GNU prints no file name (just-bash's -r would).
  const recursive = options.recursive && !(options.operands.length === 1 && checked.singleFile);
  const narrowed = { ...options, recursive, operands: checked.files };
  const files = await spelledFiles(narrowed, ctx.cwd, ctx.fs);
  if (!files) return withOperandErrors(NO_MATCH, errors, options);
  // GNU names the file when there were several operands, even if only one is left (just-bash's -r does).
  const named = !recursive && several && options.withFilename !== false && checked.singleFile;
  const result = await original(justBashArgs({ ...narrowed, recursive: recursive || named }, files));
  return withOperandErrors(result, errors, options);
}

/**
 * The options in just-bash's grammar, the arguments the parser left aside, then `--` and the
 * files. Options just-bash's grep does not know (`-H`, `-b`, `-Z`, `--label`) are spelled GNU's
 * way, which it refuses, as it always did; `-s` is applied here (see `withOperandErrors`).
 */
function justBashArgs(
  options: GrepOptions,
  files: readonly string[],
  unknown: readonly string[] = [],
): string[] {
  const letters = [
    options.syntax === "extended"
      ? "E"
      : options.syntax === "fixed"
        ? "F"
        : options.syntax === "perl"
          ? "P"
          : "",
    options.ignoreCase ? "i" : "",
    options.word ? "w" : "",
    options.line ? "x" : "",
    options.invert ? "v" : "",
    options.count ? "c" : "",
    options.filesWithMatches ? "l" : "",
    options.filesWithoutMatch ? "L" : "",
    options.onlyMatching ? "o" : "",
    options.quiet ? "q" : "",
    options.lineNumber ? "n" : "",
    options.withFilename === false ? "h" : options.withFilename ? "H" : "",
    options.recursive ? "r" : "",
    options.byteOffset ? "b" : "",
    options.nullAfterName ? "Z" : "",
  ].join("");
  const args = letters ? [`-${letters}`] : [];
  if (options.maxCount !== undefined) args.push("-m", String(options.maxCount));
  if (options.contextGiven) args.push("-A", String(options.after), "-B", String(options.before));
  if (options.label !== "(standard input)") args.push(`--label=${options.label}`);
  for (const glob of options.includes) args.push(`--include=${glob}`);
  for (const glob of options.excludes) args.push(`--exclude=${glob}`);
  for (const dir of options.excludeDirs) args.push(`--exclude-dir=${dir}`);
  for (const file of options.patternFiles) args.push(`--file=${file}`);
  if (options.patterns.length > 0) args.push("-e", options.patterns.join("\n"));
  return [...args, ...unknown, "--", ...files];
}

/**
 * GNU's answer for the operands `checkOperands` took out: their messages first (none with
 * `-s`), and exit status 2 unless `-q` found a match.
 */
function withOperandErrors(result: ExecResult, errors: readonly string[], options: GrepOptions): ExecResult {
  const stderr = options.noMessages
    ? result.stderr
        .split(/(?<=\n)/)
        .filter((line) => !FILE_ERROR.test(line.replace(/\n$/, "")))
        .join("")
    : errors.join("") + result.stderr;
  const failed = errors.length > 0 && !(options.quiet && result.exitCode === 0);
  return { ...result, stderr, exitCode: failed ? 2 : result.exitCode };
}
