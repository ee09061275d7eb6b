import { posix } from "node:path";
import type { PageViews } from "../../fs/page-views.js";
import type { TreeIndex } from "../../fs/tree-index.js";
import type { GrepOptions } from "../gnu/grep-options.js";
import type { GrepAcceleration } from "./grep-acceleration.js";
import { sparseViews } from "./sparse-views.js";

/** Rust regex metacharacters: a pattern without any is a plain string. */
const REGEX_META = /[.^$*+?()[\]{}|\\]/;

export interface RgPlan {
  kind: "full-scan" | "narrowed" | "no-candidates";
  args: string[];
  /** Sparse pages rg reads instead of whole ones (narrowed, without context lines). */
  views?: PageViews;
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
 * Plans one rg call, its flags read onto grep's options (`options`; `forwarded` are its option
 * arguments but the pattern's, as given). Only plain-string patterns are narrowed (rg's regex
 * dialect is left to rg), only over directories or several files (one file needs no narrowing),
 * and with the output switches the original would have had made explicit: `-H` (names) and
 * `-n` (line numbers), which rg turns off by itself for a single explicit file.
 */
export async function planRgCall(
  options: GrepOptions,
  forwarded: readonly string[],
  cwd: string,
  acceleration: GrepAcceleration,
): Promise<RgPlan | null> {
  if (options.patterns.length !== 1) return null;
  const pattern = options.patterns[0] as string;
  if (pattern === "" || pattern.includes("\n")) return null;
  if (options.syntax !== "fixed" && REGEX_META.test(pattern)) return null;
  const { fs, index } = acceleration;
  if (!fs.scratchIsEmpty()) return null;
  const operands = options.operands.length === 0 ? ["."] : options.operands;
  const targets: { shown: string; path: string }[] = [];
  let directories = 0;
  for (const operand of operands) {
    if (operand === "-" || /[*?[]/.test(operand)) return null;
    const path = posix.resolve(cwd, operand);
    if (fs.isScratchPath(path)) {
      if (fs.isScratchMount(path)) continue;
      return null;
    }
    if (index.files.has(path)) targets.push({ shown: operand, path });
    else if (index.directories.has(path)) {
      directories++;
      walk(index, operand, path, targets);
    } else return null;
  }
  if (directories === 0 && operands.length === 1) return null;
  const within = [...new Set(targets.map((target) => target.path))];
  const filter = { kind: "contains", text: pattern, caseInsensitive: options.ignoreCase } as const;
  const views = options.contextGiven ? null : await sparseViews(acceleration, filter, within);
  const matching = views
    ? new Set(views.keys())
    : new Set(await acceleration.store.findPages(filter, acceleration.access, within));
  const candidates = targets.filter((target) => matching.has(target.path));
  if (candidates.length === 0) return { kind: "no-candidates", args: [] };
  // just-bash's rg has no `--`, so a file name that looks like an option can't be passed.
  if (candidates.some((target) => target.shown.startsWith("-"))) return null;
  if (!views) await acceleration.pages.prefetch([...new Set(candidates.map((target) => target.path))]);
  const forced: string[] = [];
  if (options.withFilename !== false) forced.push("-H");
  if (options.lineNumber && !options.onlyMatching) forced.push("-n");
  return {
    kind: "narrowed",
    args: [...forwarded, ...forced, "-e", pattern, ...candidates.map((target) => target.shown)],
    ...(views && { views }),
  };
}
