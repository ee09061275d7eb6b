import { posix } from "node:path";
import { rethrowIfFatal } from "@atrium/spec";
import {
  type Command,
  defineCommand,
  type ExecResult,
  type IFileSystem,
  type ResolvedCommandContext,
} from "just-bash";
import { withBytesOutput } from "../byte-strings/just-bash-bytes.js";
import type { PageChunk, TextFilter } from "../doc-store/doc-store.js";
import { noteStoreFailure } from "../doc-store/store-failures.js";
import type { StoreUnavailableError } from "../errors.js";
import { withPageViews } from "../fs/page-views.js";
import type { GrepAcceleration } from "./accelerate/grep-acceleration.js";
import { baseNameFilter, grepTargets } from "./accelerate/grep-candidates.js";
import { checkOperands, respellRecursiveOperands } from "./accelerate/grep-operands.js";
import { patternsToFilter } from "./accelerate/pattern-filter.js";
import { mayMatchEmptyLine, sparseViews } from "./accelerate/sparse-views.js";
import { type GrepOptions, parseGrepOptions } from "./gnu/grep-options.js";
import { runGrep as runGnuGrep } from "./gnu/grep-run.js";
import { type GrepArgs, grepCommandLine, parseGrepArgs } from "./grep-args.js";
/** What the accelerator decided for one command line (exposed for tests). */
export type GrepPlan =
  | { kind: "full-scan"; reason: string; args: string[] }
  | {
      kind: "narrowed";
      args: string[];
      candidates: string[];
      /** The chunks grep reads instead of whole pages (see `sparsePage`); may be empty. */
      views: Map<string, readonly PageChunk[]>;
    }
  | { kind: "no-candidates" };

/**
 * Plans one grep call: narrow the files with the store, or say why every file must be read.
 * Recursive operands are first spelled GNU's way (`/` → `/a.md`, not just-bash's `//a.md`). The
 * narrowed command line is the options, `--`, the pattern operand and the candidate files spelled
 * as grep would print them, so just-bash's grep produces byte-identical output.
 */
export async function planGrep(
  args: readonly string[],
  cwd: string,
  acceleration: GrepAcceleration,
): Promise<GrepPlan> {
  return planParsed(parseGrepArgs(args), cwd, acceleration);
}

async function planParsed(parsed: GrepArgs, cwd: string, acceleration: GrepAcceleration): Promise<GrepPlan> {
  const files = await spelledFiles(parsed, cwd, acceleration.fs);
  if (!files) return { kind: "no-candidates" };
  const fullScan = (reason: string): GrepPlan => ({
    kind: "full-scan",
    reason,
    args: grepCommandLine(parsed, files),
  });
  const reason = fullScanReason(parsed, files);
  if (reason) return fullScan(reason);
  const filter = patternsToFilter(
    parsed.patterns,
    parsed.mode as "basic" | "extended" | "fixed",
    parsed.ignoreCase,
  );
  if (!filter) return fullScan("pattern not translatable");
  const { fs, index } = acceleration;
  const scratchEmpty = fs.scratchIsEmpty();
  const coversScratch = files.some((file) => fs.isScratchAncestor(posix.resolve(cwd, file)));
  if (coversScratch && !scratchEmpty) return fullScan("searches the scratch area");
  const targets = grepTargets(index, cwd, files, parsed.recursive, (path) => {
    if (!fs.isScratchPath(path)) return "docs";
    return scratchEmpty && fs.isScratchMount(path) ? "empty-mount" : "scratch";
  });
  if (!targets) return fullScan("operand is not a plain docs path");
  const byName = baseNameFilter(parsed.includes, parsed.excludes);
  const selected = byName
    ? targets.filter((target) => byName(target.shown.split("/").pop() || target.shown))
    : targets;
  if (selected.length === 0) return { kind: "no-candidates" };
  const within = [...new Set(selected.map((target) => target.path))];
  const views = readsMatchingLinesOnly(parsed, filter)
    ? await sparseViews(acceleration, filter, within)
    : null;
  let candidates: typeof selected;
  if (parsed.needsEveryFile) {
    // -c and -L report on every file: those the store rules out are read as empty pages (a
    // count of 0, listed by -L), the others as sparse ones, so no whole page is fetched.
    if (!views) return fullScan("-c/-L report on every file");
    for (const path of within) if (!views.has(path)) views.set(path, []);
    candidates = selected;
  } else {
    const matching = views
      ? new Set(views.keys())
      : new Set(await acceleration.store.findPages(filter, acceleration.access, within));
    candidates = selected.filter((target) => matching.has(target.path));
    if (candidates.length === 0) return { kind: "no-candidates" };
    if (!views) await acceleration.pages.prefetch([...new Set(candidates.map((target) => target.path))]);
  }
  // Without -r, several operands print their names; keep that when only one candidate is left.
  const forceNames = !parsed.recursive && parsed.operandCount > 1 && !parsed.noFilename ? ["-r"] : [];
  const shown = candidates.map((target) => target.shown);
  return {
    kind: "narrowed",
    args: grepCommandLine({ ...parsed, options: [...parsed.options, ...forceNames] }, shown),
    candidates: shown,
    views: views ?? new Map(),
  };
}

/**
 * Whether grep's output depends only on the lines that match, so it can read sparse pages:
 * no context lines around matches, no `-v`, and a pattern that cannot match the empty lines
 * standing in for the chunks left out.
 */
function readsMatchingLinesOnly(parsed: GrepArgs, filter: TextFilter): boolean {
  return !parsed.context && !parsed.invert && !mayMatchEmptyLine(filter);
}

function fullScanReason(parsed: GrepArgs, files: readonly string[]): string | null {
  if (parsed.unusual) return "unknown or special option";
  if (parsed.invert) return "-v prints the lines that do not match";
  if (parsed.patternFiles > 0) return "patterns from a file (-f)";
  if (parsed.patterns.length === 0) return "no pattern";
  if (parsed.mode === "perl") return "perl regex (-P)";
  if (parsed.excludeDirs > 0) return "--exclude-dir";
  if (files.length === 0) return "reads standard input";
  if (files.some((file) => file === "-" || /[*?[]/.test(file))) return "stdin or glob operand";
  return null;
}

/**
 * The file operands with recursive directories spelled GNU's way (see
 * `respellRecursiveOperands`), for both the narrowed and the full-scan path; null when the
 * operands expand to no file at all (an empty root: nothing to search, exit 1).
 */
async function spelledFiles(parsed: GrepArgs, cwd: string, fs: IFileSystem): Promise<string[] | null> {
  if (!parsed.recursive || parsed.unusual || parsed.patterns.length === 0) return parsed.files;
  const files = await respellRecursiveOperands(parsed.files, cwd, fs);
  if (!files) return parsed.files;
  return files.length === 0 ? null : files;
}

const NO_MATCH: ExecResult = { stdout: "", stderr: "", exitCode: 1 };

/** grep's answer when the store cannot be reached: its trouble status, and the store named. */
export function storeFailed(error: StoreUnavailableError, command = "grep"): ExecResult {
  return { stdout: "", stderr: `${command}: ${error.message}\n`, exitCode: 2 };
}
/** just-bash's messages about operands it could not read, which `-s` silences. */
const FILE_ERROR = /^grep: .*: (No such file or directory|Is a directory|Not a directory)$/;

/**
 * GNU's answer for the operands `checkOperands` took out: their messages first (none with
 * `-s`), and exit status 2 unless `-q` found a match.
 */
function withOperandErrors(result: ExecResult, errors: readonly string[], parsed: GrepArgs): ExecResult {
  const stderr = parsed.noMessages
    ? result.stderr
        .split(/(?<=\n)/)
        .filter((line) => !FILE_ERROR.test(line.replace(/\n$/, "")))
        .join("")
    : errors.join("") + result.stderr;
  const failed = errors.length > 0 && !(parsed.quiet && result.exitCode === 0);
  return { ...result, stderr, exitCode: failed ? 2 : result.exitCode };
}

/**
 * `grep` (and `egrep`/`fgrep`) for a docs session: ChromaFs's own GNU grep
 * (`commands/grep/`), on the store's candidates when the store can narrow the files (sparse
 * pages when only matching lines matter), on every file otherwise. A command line it does not
 * model (an option or pattern syntax it does not know) goes to just-bash's grep as before. A
 * store failure fails the command with the store named. With `acceleration` null it never
 * narrows (the unaccelerated baseline the tests and benchmark compare with).
 */
export function createGrepCommands(acceleration: GrepAcceleration | null): Command[] {
  const grep = defineCommand("grep", async (args, ctx): Promise<ExecResult> => {
    const own = parseGrepOptions(args);
    if (own.ok) {
      const result = await ownGrep(own.options, args, ctx, acceleration);
      if (result) return result;
    }
    return justBashGrep(args, ctx, acceleration);
  });
  const egrep = defineCommand("egrep", (args, ctx) => grep.execute(["-E", ...args], ctx));
  const fgrep = defineCommand("fgrep", (args, ctx) => grep.execute(["-F", ...args], ctx));
  // Their output goes to just-bash as bytes (`withBytesOutput`: much cheaper for it to pass on).
  return [grep, egrep, fgrep].map(withBytesOutput);
}

/**
 * GNU grep on the narrowed candidates, or on every file; null when the patterns use syntax the
 * own grep does not model.
 */
async function ownGrep(
  options: GrepOptions,
  args: readonly string[],
  ctx: ResolvedCommandContext,
  acceleration: GrepAcceleration | null,
): Promise<ExecResult | null> {
  if (!acceleration) return runGnuGrep(options, ctx);
  const parsed = parseGrepArgs(args);
  const checked = parsed.unusual
    ? null
    : await checkOperands(parsed.files, ctx.cwd, ctx.fs, parsed.recursive);
  if (!checked || checked.errors.length > 0) return runGnuGrep(options, ctx);
  let plan: GrepPlan;
  try {
    plan = await planParsed(parsed, ctx.cwd, acceleration);
  } catch (error) {
    // A store that cannot be reached fails the whole command: a full scan would read what is
    // cached and call every other page missing.
    if (noteStoreFailure(error, { command: "grep" })) return storeFailed(error);
    rethrowIfFatal(error);
    return runGnuGrep(options, ctx);
  }
  if (plan.kind === "full-scan") return runGnuGrep(options, ctx);
  if (plan.kind === "no-candidates") return NO_MATCH;
  const named = options.withFilename ?? (await namesFiles(options, ctx));
  const narrowed: GrepOptions = {
    ...options,
    recursive: false,
    withFilename: named,
    operands: plan.candidates,
  };
  // The session's own DocsFs, not just-bash's guarded copy of it: that guard copies every result
  // (a stat per candidate file) and is for commands the host does not trust. It is the fs the
  // session gave just-bash, scratch mount included; the grep still stops when the command is
  // cancelled (see `runGrep`).
  const direct: ResolvedCommandContext = { ...ctx, fs: acceleration.fs };
  if (plan.views.size === 0) return runGnuGrep(narrowed, direct);
  return withPageViews(plan.views, () => runGnuGrep(narrowed, direct));
}

/** GNU's default for names: several operands, or `-r` over a directory (or no operand). */
async function namesFiles(options: GrepOptions, ctx: ResolvedCommandContext): Promise<boolean> {
  if (options.operands.length > 1) return true;
  if (!options.recursive) return false;
  const only = options.operands[0];
  if (only === undefined) return true;
  try {
    return (await ctx.fs.stat(posix.resolve(ctx.cwd, only))).isDirectory;
  } catch (error) {
    rethrowIfFatal(error);
    return false;
  }
}

/** just-bash's grep, for what the own grep does not model: the previous rewrite applies. */
async function justBashGrep(
  args: readonly string[],
  ctx: ResolvedCommandContext,
  acceleration: GrepAcceleration | null,
): Promise<ExecResult> {
  const original = ctx.origCommand;
  if (!original) throw new Error("just-bash did not expose the bundled grep to the override");
  let parsed = parseGrepArgs(args);
  let errors: string[] = [];
  if (!parsed.unusual && (parsed.patterns.length > 0 || parsed.patternFiles > 0)) {
    const checked = await checkOperands(parsed.files, ctx.cwd, ctx.fs, parsed.recursive);
    errors = checked.errors;
    if (errors.length > 0 && checked.files.length === 0) return withOperandErrors(NO_MATCH, errors, parsed);
    // `grep -r x FILE`: GNU prints no file name (just-bash's -r would).
    if (parsed.recursive && parsed.operandCount === 1 && checked.singleFile)
      parsed = parseGrepArgs(args, true);
    parsed.files = checked.files;
    // GNU names the file when there were several operands, even if only one is left.
    if (!parsed.recursive && parsed.operandCount > 1 && !parsed.noFilename && checked.singleFile) {
      parsed.options.push("-r");
    }
  }
  const result = await runGrep(parsed, ctx, original, acceleration);
  return withOperandErrors(result, errors, parsed);
}

/** just-bash's grep on the store's candidates, or on every file when they can't be narrowed. */
async function runGrep(
  parsed: GrepArgs,
  ctx: ResolvedCommandContext,
  original: (args: string[]) => Promise<ExecResult>,
  acceleration: GrepAcceleration | null,
): Promise<ExecResult> {
  const fullScan = async (): Promise<ExecResult> => {
    const files = await spelledFiles(parsed, ctx.cwd, ctx.fs);
    return files ? original(grepCommandLine(parsed, files)) : NO_MATCH;
  };
  if (!acceleration) return fullScan();
  let plan: GrepPlan;
  try {
    plan = await planParsed(parsed, ctx.cwd, acceleration);
  } catch (error) {
    // A store that cannot be reached fails the whole command: a full scan would read what is
    // cached and call every other page missing.
    if (noteStoreFailure(error, { command: "grep" })) return storeFailed(error);
    rethrowIfFatal(error);
    return fullScan();
  }
  if (plan.kind === "no-candidates") return NO_MATCH;
  if (plan.kind === "narrowed" && plan.views.size > 0) {
    const { args: narrowed, views } = plan;
    return withPageViews(views, () => original(narrowed));
  }
  return original(plan.args);
}
