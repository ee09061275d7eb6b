import { posix } from "node:path";
import { rethrowIfFatal } from "@atrium/spec";
import { type Command, defineCommand } from "just-bash";
import { withBytesOutput } from "../byte-strings/just-bash-bytes.js";
import { noteStoreFailure } from "../doc-store/store-failures.js";
import { type PageViews, withPageViews } from "../fs/page-views.js";
import type { TreeIndex } from "../fs/tree-index.js";
import type { GrepAcceleration } from "./accelerate/grep-acceleration.js";
import { sparseViews } from "./accelerate/sparse-views.js";
import { storeFailed } from "./grep-command.js";

/** rg flags the accelerator understands; any other flag means just-bash's rg reads every file. */
const BOOLEAN_FLAGS: Record<string, string> = {
  i: "ignore-case",
  s: "case-sensitive",
  S: "smart-case",
  F: "fixed-strings",
  w: "word-regexp",
  x: "line-regexp",
  n: "line-number",
  N: "no-line-number",
  l: "files-with-matches",
  H: "with-filename",
  I: "no-filename",
  o: "only-matching",
  c: "count",
  q: "quiet",
};
const LONG_FLAGS = new Set(Object.values(BOOLEAN_FLAGS));
const VALUE_FLAGS = new Set(["-m", "-A", "-B", "-C", "--max-count"]);
/** Rust regex metacharacters: a pattern without any is a plain string. */
const REGEX_META = /[.^$*+?()[\]{}|\\]/;

export interface RgPlan {
  kind: "full-scan" | "narrowed" | "no-candidates";
  args: string[];
  /** Sparse pages rg reads instead of whole ones (narrowed, without context lines). */
  views?: PageViews;
}

interface ParsedRg {
  options: string[];
  flags: Set<string>;
  /** `-A`/`-B`/`-C`: lines around matches are printed, so rg needs whole pages. */
  context: boolean;
  patterns: string[];
  operands: string[];
}

function parseRg(args: readonly string[]): ParsedRg | null {
  const parsed: ParsedRg = { options: [], flags: new Set(), context: false, patterns: [], operands: [] };
  const positional: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === "--") return null;
    if (!arg.startsWith("-") || arg === "-") {
      positional.push(arg);
      continue;
    }
    if (arg === "-e" || arg === "--regexp") {
      if (i + 1 >= args.length) return null;
      parsed.patterns.push(args[++i]!);
      continue;
    }
    if (VALUE_FLAGS.has(arg)) {
      if (i + 1 >= args.length) return null;
      if (arg !== "-m" && arg !== "--max-count") parsed.context = true;
      parsed.options.push(arg, args[++i]!);
      continue;
    }
    if (/^-[mABC]\d+$/.test(arg) || /^--max-count=\d+$/.test(arg)) {
      if (/^-[ABC]/.test(arg)) parsed.context = true;
      parsed.options.push(arg);
      continue;
    }
    if (arg.startsWith("--")) {
      if (!LONG_FLAGS.has(arg.slice(2))) return null;
      parsed.flags.add(arg.slice(2));
    } else {
      for (const letter of arg.slice(1)) {
        const name = BOOLEAN_FLAGS[letter];
        if (!name) return null;
        parsed.flags.add(name);
      }
    }
    parsed.options.push(arg);
  }
  if (parsed.patterns.length === 0) {
    const pattern = positional.shift();
    if (pattern === undefined) return null;
    parsed.patterns.push(pattern);
  }
  parsed.operands = positional;
  return parsed;
}

/** rg's own spelling of a child path (`.` → `name`, `./` → `./name`, `dir/` → `dir/name`). */
function childPath(shown: string, name: string): string {
  if (shown === ".") return name;
  if (shown === "./") return `./${name}`;
  return shown.endsWith("/") ? `${shown}${name}` : `${shown}/${name}`;
}

function walk(index: TreeIndex, shown: string, path: string, into: { shown: string; path: string }[]): void {
  for (const entry of index.directories.get(path)?.children ?? []) {
    if (entry.name.startsWith(".") || entry.name === "node_modules") continue;
    const childShown = childPath(shown, entry.name);
    const child = path === "/" ? `/${entry.name}` : `${path}/${entry.name}`;
    if (entry.isDirectory) walk(index, childShown, child, into);
    else into.push({ shown: childShown, path: child });
  }
}

/**
 * Plans one rg call. Only plain-string patterns are narrowed (rg's regex dialect is left to rg),
 * only over directories or several files (one file needs no narrowing), and with the output
 * switches the original would have had made explicit: `-H` (names) and `-n` (line numbers),
 * which rg turns off by itself for a single explicit file.
 */
export async function planRg(
  args: readonly string[],
  cwd: string,
  acceleration: GrepAcceleration,
): Promise<RgPlan> {
  const fullScan: RgPlan = { kind: "full-scan", args: [...args] };
  const parsed = parseRg(args);
  if (parsed?.patterns.length !== 1) return fullScan;
  const pattern = parsed.patterns[0]!;
  if (pattern === "" || pattern.includes("\n")) return fullScan;
  if (!parsed.flags.has("fixed-strings") && REGEX_META.test(pattern)) return fullScan;
  const { fs, index } = acceleration;
  if (!fs.scratchIsEmpty()) return fullScan;
  const operands = parsed.operands.length === 0 ? ["."] : parsed.operands;
  const targets: { shown: string; path: string }[] = [];
  let directories = 0;
  for (const operand of operands) {
    if (operand === "-" || /[*?[]/.test(operand)) return fullScan;
    const path = posix.resolve(cwd, operand);
    if (fs.isScratchPath(path)) {
      if (fs.isScratchMount(path)) continue;
      return fullScan;
    }
    if (index.files.has(path)) targets.push({ shown: operand, path });
    else if (index.directories.has(path)) {
      directories++;
      walk(index, operand, path, targets);
    } else return fullScan;
  }
  if (directories === 0 && operands.length === 1) return fullScan;
  const caseInsensitive = parsed.flags.has("ignore-case") || parsed.flags.has("smart-case");
  const within = [...new Set(targets.map((target) => target.path))];
  const filter = { kind: "contains", text: pattern, caseInsensitive } as const;
  const views = parsed.context ? null : await sparseViews(acceleration, filter, within);
  const matching = views
    ? new Set(views.keys())
    : new Set(await acceleration.store.findPages(filter, acceleration.access, within));
  const candidates = targets.filter((target) => matching.has(target.path));
  if (candidates.length === 0) return { kind: "no-candidates", args: [] };
  // just-bash's rg has no `--`, so a file name that looks like an option can't be passed.
  if (candidates.some((target) => target.shown.startsWith("-"))) return fullScan;
  if (!views) await acceleration.pages.prefetch([...new Set(candidates.map((target) => target.path))]);
  const forced: string[] = [];
  if (!parsed.flags.has("no-filename")) forced.push("-H");
  const lineNumbers =
    !parsed.flags.has("no-line-number") &&
    !parsed.flags.has("only-matching") &&
    !parsed.flags.has("line-number");
  if (lineNumbers) forced.push("-n");
  return {
    kind: "narrowed",
    args: [...parsed.options, ...forced, "-e", pattern, ...candidates.map((target) => target.shown)],
    ...(views && { views }),
  };
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
