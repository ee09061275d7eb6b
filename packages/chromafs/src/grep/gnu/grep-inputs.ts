import { posix } from "node:path";
import { rethrowIfFatal } from "@atrium/spec";
import type { IFileSystem } from "just-bash";
import picomatch from "picomatch";
import type { GrepOptions } from "./grep-options.js";

/** One file grep reads: where it is, how grep prints its name, and whether a walk found it. */
export interface GrepInput {
  /** Absolute path, or null for standard input. */
  path: string | null;
  shown: string;
  fromWalk: boolean;
}

export interface ResolvedInputs {
  inputs: GrepInput[];
  /** GNU's message for each operand it could not read, in order. */
  errors: string[];
}

/**
 * The files GNU grep reads for the operands, in its order: operands left to right, `-r`
 * directories walked in directory order (dot-entries skipped, as the store's candidate walk
 * does), names joined GNU's way (`/` + `x` = `/x`, `dir/` + `x` = `dir/x`, no operand: bare
 * names). `--include`/`--exclude` test base names of files (command-line files too),
 * `--exclude-dir` the base names of directories.
 */
export async function resolveInputs(
  options: GrepOptions,
  cwd: string,
  fs: IFileSystem,
): Promise<ResolvedInputs> {
  const inputs: GrepInput[] = [];
  const errors: string[] = [];
  const glob = (globs: readonly string[]) => globs.map((one) => picomatch(one, { dot: true, bash: true }));
  const include = glob(options.includes);
  const exclude = glob(options.excludes);
  const excludeDir = glob(options.excludeDirs);
  const fileWanted = (name: string) =>
    !exclude.some((test) => test(name)) && (include.length === 0 || include.some((test) => test(name)));
  const walk = async (path: string, shown: string): Promise<void> => {
    let names: string[];
    try {
      names = await fs.readdir(path);
    } catch (error) {
      rethrowIfFatal(error);
      errors.push(`grep: ${shown}: Permission denied\n`);
      return;
    }
    for (const name of names) {
      if (name.startsWith(".")) continue;
      const child = path === "/" ? `/${name}` : `${path}/${name}`;
      const childShown = shown === "" ? name : shown.endsWith("/") ? `${shown}${name}` : `${shown}/${name}`;
      const info = await fs.stat(child).catch(() => null);
      if (!info) continue;
      if (info.isDirectory) {
        if (!excludeDir.some((test) => test(name))) await walk(child, childShown);
      } else if (fileWanted(name)) inputs.push({ path: child, shown: childShown, fromWalk: true });
    }
  };
  const operands = options.operands.length === 0 && options.recursive ? [null] : options.operands;
  if (operands.length === 0) inputs.push({ path: null, shown: options.label, fromWalk: false });
  for (const operand of operands) {
    if (operand === null) {
      await walk(cwd, "");
      continue;
    }
    if (operand === "-") {
      inputs.push({ path: null, shown: options.label, fromWalk: false });
      continue;
    }
    const path = posix.resolve(cwd, operand);
    const info = await fs.stat(path).catch((error: unknown) => {
      rethrowIfFatal(error);
      return null;
    });
    if (!info) {
      const asFile = operand.endsWith("/")
        ? await fs.stat(posix.resolve(cwd, operand.replace(/\/+$/, ""))).catch(() => null)
        : null;
      errors.push(`grep: ${operand}: ${asFile?.isFile ? "Not a directory" : "No such file or directory"}\n`);
      continue;
    }
    if (info.isDirectory) {
      if (!options.recursive) errors.push(`grep: ${operand}: Is a directory\n`);
      else if (!excludeDir.some((test) => test(posix.basename(path))))
        await walk(path, operand.replace(/(?<=.)\/+$/, ""));
      continue;
    }
    if (operand.endsWith("/")) {
      errors.push(`grep: ${operand}: Not a directory\n`);
      continue;
    }
    if (fileWanted(posix.basename(operand))) inputs.push({ path, shown: operand, fromWalk: false });
  }
  return { inputs, errors };
}
