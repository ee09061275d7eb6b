import { existsSync, readFileSync } from "node:fs";
import { basename } from "node:path";
import { fileURLToPath } from "node:url";
import { ConfigError } from "@atrium/spec";

/**
 * Where a file a package ships sits, whether the package runs from its TypeScript sources
 * (tests, `tsx`) or from its build (`dist/`, as published). Paths are relative to `from`.
 */
export interface PackageFileOptions {
  /** `import.meta.url` of the module asking: it tells whether the package runs built or from source. */
  from: string;
  /** The file beside the sources (a `.ts` entry, a `.py` harness). */
  source: string;
  /**
   * Where the build puts it, or several places tried in order: code bundled into `dist/` and
   * into `dist/cli/` alike asks from either folder.
   */
  built: string | readonly string[];
  /** Who asks, for the error a missing file raises ("PythonExecutor"). */
  owner: string;
}

/** True when `from` (an `import.meta.url`) is a TypeScript source, not a built file. */
export function runsFromSource(from: string): boolean {
  return /\.[cm]?tsx?$/.test(from);
}

/**
 * The URL of a file the package ships (see `PackageFileOptions`). From sources it is the source
 * file itself; from a build, the first of `built` that exists, and a missing one is a
 * `ConfigError` naming every place looked at, since it means the package was built or packed
 * without it.
 */
export function packageFile({ from, source, built, owner }: PackageFileOptions): URL {
  if (runsFromSource(from)) return new URL(source, from);
  const candidates = (typeof built === "string" ? [built] : built).map((path) => new URL(path, from));
  const found = candidates.find((url) => existsSync(fileURLToPath(url)));
  if (found) return found;
  const paths = candidates.map((url) => fileURLToPath(url));
  throw new ConfigError(
    `${owner}: its file ${basename(paths[0] ?? source)} is missing (looked for ${paths.join(" and ")}); the package was built or packed without it`,
  );
}

const texts = new Map<string, string>();

/**
 * The text of a file the package ships (a Python harness, say), read at run time from where
 * `packageFile` finds it, once per process: a package's files do not change while it runs.
 */
export function packageText(files: PackageFileOptions): string {
  const url = packageFile(files).href;
  let text = texts.get(url);
  if (text === undefined) {
    text = readFileSync(new URL(url), "utf8");
    texts.set(url, text);
  }
  return text;
}
