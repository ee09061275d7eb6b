import { posix } from "node:path";
import { regexLiteral } from "../../doc-store/regex-literal.js";
import type { TreeIndex } from "../../fs/tree-index.js";

export interface GrepTarget {
  /** The path as grep will print it (built from the operand exactly as just-bash's grep does). */
  shown: string;
  /** The absolute tree path. */
  path: string;
}

/**
 * The files grep would read for `operands`, in grep's own order and spelled as grep prints them:
 * recursion joins `operand/name` as just-bash's grep does (`planGrep` has already respelled `/`,
 * `.` and trailing slashes GNU's way, so this join is GNU's too), skips
 * dot-entries, and visits children in readdir order. Returns null when an operand is something
 * this walk does not model (missing path, a directory without -r, a non-empty scratch area).
 */
export function grepTargets(
  index: TreeIndex,
  cwd: string,
  operands: readonly string[],
  recursive: boolean,
  scratch: (path: string) => "docs" | "empty-mount" | "scratch",
): GrepTarget[] | null {
  const targets: GrepTarget[] = [];
  for (const operand of operands) {
    const path = posix.resolve(cwd, operand);
    const area = scratch(path);
    // An empty scratch directory adds nothing to a recursive grep (e.g. `grep -r x *` at /).
    if (area === "empty-mount" && recursive) continue;
    if (area !== "docs") return null;
    if (index.files.has(path)) {
      if (operand.endsWith("/")) return null;
      targets.push({ shown: operand, path });
      continue;
    }
    if (!recursive || !index.directories.has(path)) return null;
    walk(index, operand, path, targets);
  }
  return targets;
}

function walk(index: TreeIndex, shown: string, path: string, into: GrepTarget[]): void {
  for (const entry of index.directories.get(path)?.children ?? []) {
    if (entry.name.startsWith(".")) continue;
    const childShown = shown === "." ? entry.name : `${shown}/${entry.name}`;
    const childPath = path === "/" ? `/${entry.name}` : `${path}/${entry.name}`;
    if (entry.isDirectory) walk(index, childShown, childPath, into);
    else into.push({ shown: childShown, path: childPath });
  }
}

/**
 * grep's `--include`/`--exclude` test on a base name, for globs of literals, `*` and `?` only
 * (translated as just-bash's grep does, surrounding quotes stripped); null when there are no
 * globs, or when a glob has a bracket expression, in which case grep alone applies the globs to
 * a wider candidate list.
 */
export function baseNameFilter(
  includes: readonly string[],
  excludes: readonly string[],
): ((name: string) => boolean) | null {
  if (includes.length === 0 && excludes.length === 0) return null;
  const compile = (glob: string): RegExp | null => {
    const quoted = /^(["'])(.*)\1$/s.exec(glob);
    const text = quoted ? quoted[2]! : glob;
    if (text.includes("[")) return null;
    let source = "^";
    for (const char of text) {
      if (char === "*") source += ".*";
      else if (char === "?") source += ".";
      else source += regexLiteral(char);
    }
    return new RegExp(`${source}$`);
  };
  const include = includes.map(compile);
  const exclude = excludes.map(compile);
  if (include.includes(null) || exclude.includes(null)) return null;
  return (name) =>
    !exclude.some((glob) => glob!.test(name)) &&
    (include.length === 0 || include.some((glob) => glob!.test(name)));
}
