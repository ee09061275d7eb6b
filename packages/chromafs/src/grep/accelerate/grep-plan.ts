import { posix } from "node:path";
import type { IFileSystem } from "just-bash";
import type { PageChunk, TextFilter } from "../../doc-store/doc-store.js";
import type { GrepOptions } from "../gnu/grep-options.js";
import type { GrepAcceleration } from "./grep-acceleration.js";
import { baseNameFilter, grepTargets } from "./grep-candidates.js";
import { respellRecursiveOperands } from "./grep-operands.js";
import { patternsToFilter } from "./pattern-filter.js";
import { mayMatchEmptyLine, sparseViews } from "./sparse-views.js";

/** What the accelerator decided for one grep call (exposed for tests). */
export type GrepPlan =
  | { kind: "full-scan"; reason: string }
  | {
      kind: "narrowed";
      /** The files grep reads, spelled as it prints them. */
      candidates: string[];
      /** The chunks grep reads instead of whole pages (see `sparsePage`); may be empty. */
      views: Map<string, readonly PageChunk[]>;
    }
  | { kind: "no-candidates" };

/**
 * Plans one grep call: narrow the files with the store, or say why every file must be read.
 * Recursive operands are first spelled GNU's way (`/` → `/a.md`, not `//a.md`); the candidates
 * are the files grep would read, spelled as it would print them, that the store says may match.
 */
export async function planGrepCall(
  options: GrepOptions,
  cwd: string,
  acceleration: GrepAcceleration,
): Promise<GrepPlan> {
  const files = await spelledFiles(options, cwd, acceleration.fs);
  if (!files) return { kind: "no-candidates" };
  const fullScan = (reason: string): GrepPlan => ({ kind: "full-scan", reason });
  const reason = fullScanReason(options, files);
  if (reason) return fullScan(reason);
  const filter = patternsToFilter(
    options.patterns.flatMap((pattern) => pattern.split("\n")),
    options.syntax as "basic" | "extended" | "fixed",
    options.ignoreCase,
  );
  if (!filter) return fullScan("pattern not translatable");
  const { fs, index } = acceleration;
  const scratchEmpty = fs.scratchIsEmpty();
  const coversScratch = files.some((file) => fs.isScratchAncestor(posix.resolve(cwd, file)));
  if (coversScratch && !scratchEmpty) return fullScan("searches the scratch area");
  const targets = grepTargets(index, cwd, files, options.recursive, (path) => {
    if (!fs.isScratchPath(path)) return "docs";
    return scratchEmpty && fs.isScratchMount(path) ? "empty-mount" : "scratch";
  });
  if (!targets) return fullScan("operand is not a plain docs path");
  const byName = baseNameFilter(options.includes, options.excludes);
  const selected = byName
    ? targets.filter((target) => byName(target.shown.split("/").pop() || target.shown))
    : targets;
  if (selected.length === 0) return { kind: "no-candidates" };
  const within = [...new Set(selected.map((target) => target.path))];
  const views = readsMatchingLinesOnly(options, filter)
    ? await sparseViews(acceleration, filter, within)
    : null;
  let candidates: typeof selected;
  if (options.count || options.filesWithoutMatch) {
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
  return {
    kind: "narrowed",
    candidates: candidates.map((target) => target.shown),
    views: views ?? new Map(),
  };
}

/**
 * Whether grep's output depends only on the lines that match, so it can read sparse pages:
 * no context lines around matches, no `-v`, no byte offsets (which count the lines left out),
 * and a pattern that cannot match the empty lines standing in for the chunks left out.
 */
function readsMatchingLinesOnly(options: GrepOptions, filter: TextFilter): boolean {
  return !options.contextGiven && !options.invert && !options.byteOffset && !mayMatchEmptyLine(filter);
}

function fullScanReason(options: GrepOptions, files: readonly string[]): string | null {
  if (options.invert) return "-v prints the lines that do not match";
  if (options.patternFiles.length > 0) return "patterns from a file (-f)";
  if (options.patterns.length === 0) return "no pattern";
  if (options.syntax === "perl") return "perl regex (-P)";
  if (options.excludeDirs.length > 0) return "--exclude-dir";
  if (files.length === 0) return "reads standard input";
  if (files.some((file) => file === "-" || /[*?[]/.test(file))) return "stdin or glob operand";
  return null;
}

/**
 * The file operands with recursive directories spelled GNU's way (see
 * `respellRecursiveOperands`); null when the operands expand to no file at all (an empty root:
 * nothing to search, exit 1).
 */
export async function spelledFiles(
  options: GrepOptions,
  cwd: string,
  fs: IFileSystem,
): Promise<string[] | null> {
  if (!options.recursive || options.patterns.length === 0) return options.operands;
  const files = await respellRecursiveOperands(options.operands, cwd, fs);
  if (!files) return options.operands;
  return files.length === 0 ? null : files;
}
