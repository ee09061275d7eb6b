import { rethrowIfFatal } from "@atrium/spec";
import { type Command, defineCommand } from "just-bash";
import { withBytesOutput } from "../byte-strings/just-bash-bytes.js";
import { noteStoreFailure } from "../doc-store/store-failures.js";
import { defineFlags, type Flag, sets } from "../flags/flag-table.js";
import { withPageViews } from "../fs/page-views.js";
import type { GrepAcceleration } from "./accelerate/grep-acceleration.js";
import { planRgCall, type RgPlan } from "./accelerate/rg-plan.js";
import { CONTEXT_FLAGS, defaultGrepOptions, type GrepOptions, MAX_COUNT_FLAG } from "./gnu/grep-options.js";
import { storeFailed } from "./grep-command.js";

/** grep's options with rg's smart case (on by default in just-bash's rg, as in rg). */
interface RgOptions extends GrepOptions {
  smartCase: boolean;
}

const PATTERN: Flag<RgOptions> = {
  short: "e",
  long: "regexp",
  value: "required",
  apply: (o, v) => void o.patterns.push(v),
};

/**
 * The rg flags the accelerator understands, read onto grep's options; any other flag means
 * just-bash's rg reads every file. Only spellings just-bash's rg reads the same way are listed,
 * since the narrowed call passes them on as given.
 */
const RG_FLAGS = defineFlags<RgOptions>(
  [
    { short: "i", long: "ignore-case", apply: sets({ ignoreCase: true, smartCase: false }) },
    { short: "s", long: "case-sensitive", apply: sets({ ignoreCase: false, smartCase: false }) },
    { short: "S", long: "smart-case", apply: sets({ ignoreCase: false, smartCase: true }) },
    { short: "F", long: "fixed-strings", apply: sets({ syntax: "fixed" }) },
    { short: "w", long: "word-regexp", apply: sets({ word: true }) },
    { short: "x", long: "line-regexp", apply: sets({ line: true }) },
    { short: "n", long: "line-number", apply: sets({ lineNumber: true }) },
    { short: "N", long: "no-line-number", apply: sets({ lineNumber: false }) },
    { short: "l", long: "files-with-matches", apply: sets({ filesWithMatches: true }) },
    { short: "H", long: "with-filename", apply: sets({ withFilename: true }) },
    { short: "I", long: "no-filename", apply: sets({ withFilename: false }) },
    { short: "o", long: "only-matching", apply: sets({ onlyMatching: true }) },
    { short: "c", long: "count", apply: sets({ count: true }) },
    { short: "q", long: "quiet", apply: sets({ quiet: true }) },
    PATTERN,
    MAX_COUNT_FLAG,
    // Short only: just-bash's rg has no --after-context and the like.
    ...CONTEXT_FLAGS.map((flag) => ({ ...flag, long: undefined })),
  ],
  // just-bash's rg has no `--`.
  { doubleDash: false },
);

/**
 * An rg command line as grep's options, with rg's defaults (line numbers on, smart case: a
 * pattern without an upper-case letter matches either case), and its option arguments but the
 * pattern's, as given; null for a flag the accelerator does not model.
 */
export function parseRgOptions(
  args: readonly string[],
): { options: GrepOptions; forwarded: string[] } | null {
  const parsed = RG_FLAGS.parse(args, { ...defaultGrepOptions(), lineNumber: true, smartCase: true });
  if (!parsed.ok) return null;
  const { smartCase, ...options } = parsed.options;
  const { operands } = parsed;
  if (options.patterns.length === 0) {
    const pattern = operands.shift();
    if (pattern === undefined) return null;
    options.patterns.push(pattern);
  }
  options.operands = operands;
  if (smartCase) options.ignoreCase = !options.patterns.some((pattern) => /[A-Z]/.test(pattern));
  const forwarded = parsed.given.filter((given) => given.flag !== PATTERN).flatMap((given) => given.tokens);
  return { options, forwarded };
}

/** Plans one rg call (its arguments after `rg`): narrowed to the store's candidates, or a full scan. */
export async function planRg(
  args: readonly string[],
  cwd: string,
  acceleration: GrepAcceleration,
): Promise<RgPlan> {
  const parsed = parseRgOptions(args);
  const plan = parsed && (await planRgCall(parsed.options, parsed.forwarded, cwd, acceleration));
  return plan ?? { kind: "full-scan", args: [...args] };
}

/** `rg` narrowed by the store like grep, then just-bash's own rg on the candidates. */
export function createRgCommand(acceleration: GrepAcceleration): Command {
  const rg = defineCommand("rg", async (args, ctx) => {
    const original = ctx.origCommand;
    if (!original) throw new Error("just-bash did not expose the bundled rg to the override");
    let plan: RgPlan;
    try {
      plan = await planRg(args, ctx.cwd, acceleration);
    } catch (error) {
      if (noteStoreFailure(error, { command: "rg" })) return storeFailed(error, "rg");
      rethrowIfFatal(error);
      plan = { kind: "full-scan", args: [...args] };
    }
    if (plan.kind === "no-candidates") return { stdout: "", stderr: "", exitCode: 1 };
    const { args: narrowed, views } = plan;
    return views ? withPageViews(views, () => original(narrowed)) : original(narrowed);
  });
  return withBytesOutput(rg);
}
