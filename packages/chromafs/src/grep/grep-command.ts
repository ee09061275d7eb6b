import { posix } from "node:path";
import { rethrowIfFatal } from "@atrium/spec";
import { type Command, defineCommand, type ExecResult, type IFileSystem } from "just-bash";
import type { DocsFs } from "../fs/docs-fs.js";
import type { PageSource } from "../fs/page-source.js";
import { sparsePage, withPageViews } from "../fs/page-views.js";
import type { Access, DocStore, TextFilter } from "../store/doc-store.js";
import { compileTextFilter } from "../store/text-filter-matcher.js";
import type { TreeIndex } from "../tree/tree-index.js";
import { type GrepArgs, parseGrepArgs } from "./grep-args.js";
import { baseNameFilter, grepTargets } from "./grep-candidates.js";
import { respellRecursiveOperands } from "./grep-operands.js";
import { patternToFilter } from "./pattern-filter.js";

export interface GrepAcceleration {
  store: DocStore;
  access: Access;
  index: TreeIndex;
  pages: PageSource;
  fs: DocsFs;
}

/** What the accelerator decided for one command line (exposed for tests). */
export type GrepPlan =
  | { kind: "full-scan"; reason: string; args: string[] }
  | {
      kind: "narrowed";
      args: string[];
      candidates: string[];
      /** Sparse pages grep reads instead of the whole ones (see `sparsePage`); may be empty. */
      views: Map<string, string>;
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
  const spelled = await respellArgs(args, cwd, acceleration.fs);
  if (!spelled) return { kind: "no-candidates" };
  const parsed = parseGrepArgs(spelled);
  const fullScan = (reason: string): GrepPlan => ({ kind: "full-scan", reason, args: parsed.normalized });
  const reason = fullScanReason(parsed);
  if (reason) return fullScan(reason);
  const filter = patternToFilter(
    parsed.patterns[0]!,
    parsed.mode as "basic" | "extended" | "fixed",
    parsed.ignoreCase,
  );
  if (!filter) return fullScan("pattern not translatable");
  const { fs, index } = acceleration;
  const scratchEmpty = fs.scratchIsEmpty();
  const coversScratch = parsed.files.some((file) => fs.isScratchAncestor(posix.resolve(cwd, file)));
  if (coversScratch && !scratchEmpty) return fullScan("searches the scratch area");
  const targets = grepTargets(index, cwd, parsed.files, parsed.recursive, (path) => {
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
  const matching = views
    ? new Set(views.keys())
    : new Set(await acceleration.store.findPages(filter, acceleration.access, within));
  const candidates = selected.filter((target) => matching.has(target.path));
  if (candidates.length === 0) return { kind: "no-candidates" };
  if (!views) await acceleration.pages.prefetch([...new Set(candidates.map((target) => target.path))]);
  // Without -r, several files print their names; keep that when only one candidate is left.
  const forceNames = !parsed.recursive && parsed.files.length > 1 && !parsed.noFilename ? ["-r"] : [];
  const pattern = parsed.positionalPattern === undefined ? [] : [parsed.positionalPattern];
  return {
    kind: "narrowed",
    args: [...parsed.options, ...forceNames, "--", ...pattern, ...candidates.map((target) => target.shown)],
    candidates: candidates.map((target) => target.shown),
    views: views ?? new Map(),
  };
}

/**
 * Whether grep's output depends only on the lines that match, so it can read sparse pages:
 * no context lines around matches, and a pattern that cannot match the empty lines standing in
 * for the chunks left out (a wider filter that matches "" rules itself out, as does any regex
 * ECMAScript can't compile).
 */
function readsMatchingLinesOnly(parsed: GrepArgs, filter: TextFilter): boolean {
  if (parsed.context) return false;
  if (filter.kind === "contains") return filter.text !== "";
  try {
    const regex = new RegExp(filter.pattern, filter.caseInsensitive ? "iu" : "u");
    return !regex.test("") && !regex.test("\n");
  } catch {
    return false;
  }
}

/**
 * Sparse pages for the candidates among `within`, keyed by tree path, from the chunks the store
 * finds; null when the store can't place chunks (no `findChunks`, or an older collection).
 */
async function sparseViews(
  acceleration: GrepAcceleration,
  filter: TextFilter,
  within: readonly string[],
): Promise<Map<string, string> | null> {
  const found = await acceleration.store.findChunks?.(filter, acceleration.access, within);
  if (!found) return null;
  const views = new Map<string, string>();
  const mayMatch = compileTextFilter(filter);
  for (const [path, chunks] of found) {
    const view = sparsePage(chunks, mayMatch);
    if (view === null) return null;
    views.set(path, view);
  }
  return views;
}

function fullScanReason(parsed: GrepArgs): string | null {
  if (parsed.unusual) return "unknown or special option";
  if (parsed.needsEveryFile) return "-v/-c/-L report on non-matching files";
  if (parsed.patternFiles > 0) return "patterns from a file (-f)";
  if (parsed.patterns.length !== 1) return "several patterns";
  if (parsed.mode === "perl") return "perl regex (-P)";
  if (parsed.excludeDirs > 0) return "--exclude-dir";
  if (parsed.files.length === 0) return "reads standard input";
  if (parsed.files.some((file) => file === "-" || /[*?[]/.test(file))) return "stdin or glob operand";
  return null;
}

/**
 * The command line with recursive directory operands spelled GNU's way (see
 * `respellRecursiveOperands`), for both the narrowed and the full-scan path; null when the
 * operands expand to no file at all (an empty root: nothing to search, exit 1).
 */
async function respellArgs(
  args: readonly string[],
  cwd: string,
  fs: IFileSystem,
): Promise<readonly string[] | null> {
  const parsed = parseGrepArgs(args);
  if (!parsed.recursive || parsed.unusual || parsed.patterns.length === 0) return args;
  const files = await respellRecursiveOperands(parsed.files, cwd, fs);
  if (!files) return args;
  if (files.length === 0) return null;
  const pattern = parsed.positionalPattern === undefined ? [] : [parsed.positionalPattern];
  return [...parsed.options, "--", ...pattern, ...files];
}

/**
 * `grep` (and `egrep`/`fgrep`) for a docs session: the store narrows the files, then just-bash's
 * own grep (`ctx.origCommand`) runs on the candidates only. A store failure falls back to the
 * full scan, so the answer is always grep's. With `acceleration` null it only adds the GNU
 * `--include GLOB` spellings (the unaccelerated baseline the tests and benchmark compare with).
 */
export function createGrepCommands(acceleration: GrepAcceleration | null): Command[] {
  const grep = defineCommand("grep", async (args, ctx): Promise<ExecResult> => {
    const original = ctx.origCommand;
    if (!original) throw new Error("just-bash did not expose the bundled grep to the override");
    if (!acceleration) {
      const spelled = await respellArgs(args, ctx.cwd, ctx.fs);
      return spelled ? original(parseGrepArgs(spelled).normalized) : { stdout: "", stderr: "", exitCode: 1 };
    }
    let plan: GrepPlan;
    try {
      plan = await planGrep(args, ctx.cwd, acceleration);
    } catch (error) {
      rethrowIfFatal(error);
      const spelled = await respellArgs(args, ctx.cwd, ctx.fs);
      if (!spelled) return { stdout: "", stderr: "", exitCode: 1 };
      plan = { kind: "full-scan", reason: "store failed", args: parseGrepArgs(spelled).normalized };
    }
    if (plan.kind === "no-candidates") return { stdout: "", stderr: "", exitCode: 1 };
    if (plan.kind === "narrowed" && plan.views.size > 0) {
      const { args: narrowed, views } = plan;
      return withPageViews(views, () => original(narrowed));
    }
    return original(plan.args);
  });
  const egrep = defineCommand("egrep", (args, ctx) => grep.execute(["-E", ...args], ctx));
  const fgrep = defineCommand("fgrep", (args, ctx) => grep.execute(["-F", ...args], ctx));
  return [grep, egrep, fgrep];
}
