import { posix } from "node:path";
import { rethrowIfFatal } from "@atrium/spec";
import { type Command, defineCommand, type ExecResult, type ResolvedCommandContext } from "just-bash";
import { withBytesOutput } from "../byte-strings/just-bash-bytes.js";
import { noteStoreFailure } from "../doc-store/store-failures.js";
import type { StoreUnavailableError } from "../errors.js";
import { withPageViews } from "../fs/page-views.js";
import type { GrepAcceleration } from "./accelerate/grep-acceleration.js";
import { checkOperands } from "./accelerate/grep-operands.js";
import { type GrepPlan, planGrepCall } from "./accelerate/grep-plan.js";
import { type GrepOptions, parseGrepOptions } from "./gnu/grep-options.js";
import { runGrep } from "./gnu/grep-run.js";
import { justBashGrep, NO_MATCH } from "./just-bash-grep.js";

/**
 * Plans one grep command line (its arguments after `grep`) as the `grep` command would: the
 * candidates the store narrows it to, or why every file is read (exposed for tests).
 */
export async function planGrep(
  args: readonly string[],
  cwd: string,
  acceleration: GrepAcceleration,
): Promise<GrepPlan> {
  const parsed = parseGrepOptions(args);
  if (!parsed.ok) return { kind: "full-scan", reason: "unknown or special option" };
  return planGrepCall(parsed.options, cwd, acceleration);
}

/** grep's answer when the store cannot be reached: its trouble status, and the store named. */
export function storeFailed(error: StoreUnavailableError, command = "grep"): ExecResult {
  return { stdout: "", stderr: `${command}: ${error.message}\n`, exitCode: 2 };
}

/**
 * `grep` (and `egrep`/`fgrep`) for a docs session: ChromaFs's own GNU grep (`gnu/`), on the
 * store's candidates when the store can narrow the files (sparse pages when only matching lines
 * matter), on every file otherwise. A command line it does not model (an option or pattern
 * syntax it does not know) goes to just-bash's grep (`just-bash-grep.ts`). A store failure
 * fails the command with the store named. With `acceleration` null it never narrows (the
 * unaccelerated baseline the tests and benchmark compare with).
 */
export function createGrepCommands(acceleration: GrepAcceleration | null): Command[] {
  const grep = defineCommand("grep", async (args, ctx): Promise<ExecResult> => {
    const parsed = parseGrepOptions(args);
    if (parsed.ok) {
      const result = await ownGrep(parsed.options, ctx, acceleration);
      if (result) return result;
    }
    return justBashGrep(parsed, ctx);
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
  ctx: ResolvedCommandContext,
  acceleration: GrepAcceleration | null,
): Promise<ExecResult | null> {
  if (!acceleration) return runGrep(options, ctx);
  const checked = await checkOperands(options.operands, ctx.cwd, ctx.fs, options.recursive);
  if (checked.errors.length > 0) return runGrep(options, ctx);
  let plan: GrepPlan;
  try {
    plan = await planGrepCall(options, ctx.cwd, acceleration);
  } catch (error) {
    // A store that cannot be reached fails the whole command: a full scan would read what is
    // cached and call every other page missing.
    if (noteStoreFailure(error, { command: "grep" })) return storeFailed(error);
    rethrowIfFatal(error);
    return runGrep(options, ctx);
  }
  if (plan.kind === "full-scan") return runGrep(options, ctx);
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
  if (plan.views.size === 0) return runGrep(narrowed, direct);
  return withPageViews(plan.views, () => runGrep(narrowed, direct));
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
