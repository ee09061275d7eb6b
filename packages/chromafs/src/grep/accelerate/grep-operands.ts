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

export interface CheckedOperands {
  /** The operands grep can read, in order. */
  files: string[];
  /** GNU's message for each operand left out, in order. */
  errors: string[];
  /** Whether exactly one operand is left and it is a regular file. */
  singleFile: boolean;
}

/**
 * The file operands GNU grep would complain about, taken out of the command line: a missing
 * path (`No such file or directory`; just-bash's `-r` skips it silently), a file named with a
 * trailing slash (`Not a directory`) and a directory without `-r` (`Is a directory`; just-bash
 * says so but exits 1). Standard input and glob operands (just-bash expands the latter) stay.
 */
export async function checkOperands(
  operands: readonly string[],
  cwd: string,
  fs: IFileSystem,
  recursive: boolean,
): Promise<CheckedOperands> {
  const files: string[] = [];
  const errors: string[] = [];
  let lastIsFile = false;
  for (const operand of operands) {
    if (operand === "-" || /[*?[]/.test(operand)) {
      files.push(operand);
      lastIsFile = false;
      continue;
    }
    const problem = await operandProblem(fs, cwd, operand, recursive);
    if (problem === "file" || problem === "directory") {
      files.push(operand);
      lastIsFile = problem === "file";
    } else errors.push(`grep: ${operand}: ${problem}\n`);
  }
  return { files, errors, singleFile: files.length === 1 && lastIsFile };
}

async function operandProblem(
  fs: IFileSystem,
  cwd: string,
  operand: string,
  recursive: boolean,
): Promise<"file" | "directory" | string> {
  let isDirectory: boolean;
  try {
    isDirectory = (await fs.stat(fs.resolvePath(cwd, operand))).isDirectory;
  } catch (error) {
    rethrowIfFatal(error);
    const file = operand.replace(/\/+$/, "");
    const isFile =
      file !== operand && file !== "" && (await operandProblem(fs, cwd, file, recursive)) === "file";
    return isFile ? "Not a directory" : "No such file or directory";
  }
  if (isDirectory) return recursive ? "directory" : "Is a directory";
  return operand.endsWith("/") ? "Not a directory" : "file";
}
