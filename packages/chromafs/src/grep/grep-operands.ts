import { rethrowIfFatal } from "@atrium/spec";
import type { IFileSystem } from "just-bash";

/**
 * GNU grep's spelling of recursive operands, which just-bash's grep gets wrong by joining
 * `operand + "/" + name` literally: GNU drops trailing slashes from a directory operand
 * (`/api/` → `/api/x.mdx`), joins the root as `/x.mdx` (not `//x.mdx`) and keeps `./` for `.`
 * (`./x.mdx`, where just-bash prints `x.mdx`). Rewriting `/` and `.` into their children
 * (dot-entries skipped, readdir order: just-bash's own walk) makes just-bash print GNU's paths
 * while it still applies `--include`/`--exclude`/`--exclude-dir` exactly as in its own walk.
 * No operand at all means the working directory, printed without a prefix (GNU's `grep -r x`;
 * just-bash would read standard input). Returns null when nothing needs respelling.
 */
export async function respellRecursiveOperands(
  operands: readonly string[],
  cwd: string,
  fs: IFileSystem,
): Promise<string[] | null> {
  const spelled: string[] = [];
  if (operands.length === 0) {
    await pushChildren(fs, cwd, ".", "", spelled);
    return spelled;
  }
  let changed = false;
  for (const operand of operands) {
    const trimmed = operand.replace(/(?<=.)\/+$/, "");
    const isRoot = trimmed === "/";
    if ((trimmed === operand && !isRoot && trimmed !== ".") || !(await isDirectory(fs, cwd, operand))) {
      spelled.push(operand);
      continue;
    }
    changed = true;
    if (!isRoot && trimmed !== ".") {
      spelled.push(trimmed);
      continue;
    }
    await pushChildren(fs, cwd, trimmed, isRoot ? "/" : "./", spelled);
  }
  return changed ? spelled : null;
}

async function pushChildren(
  fs: IFileSystem,
  cwd: string,
  directory: string,
  prefix: string,
  into: string[],
): Promise<void> {
  for (const name of await fs.readdir(fs.resolvePath(cwd, directory))) {
    if (!name.startsWith(".")) into.push(`${prefix}${name}`);
  }
}

async function isDirectory(fs: IFileSystem, cwd: string, operand: string): Promise<boolean> {
  if (operand === "-" || /[*?[]/.test(operand)) return false;
  try {
    return (await fs.stat(fs.resolvePath(cwd, operand))).isDirectory;
  } catch (error) {
    rethrowIfFatal(error);
    return false;
  }
}
