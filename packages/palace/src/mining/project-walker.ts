import type { Dirent } from "node:fs";
import { readdir, readFile, stat } from "node:fs/promises";
import { extname, join } from "node:path";
import ignore, { type Ignore } from "ignore";
import { throwIfAborted } from "./abort.js";

/**
 * The files of a project worth remembering: everything git would track (each directory's
 * `.gitignore` applies below it, deeper rules override shallower ones, as in git), minus what is
 * never worth a drawer (`.git`, `node_modules`, binaries, lockfiles, minified bundles, files past
 * the size limit). Symbolic links are not followed, so a link cycle cannot trap the walk.
 * Entries come in a stable order (names sorted), so two walks of one tree agree.
 */

export interface ProjectFile {
  /** Relative to the walked root, with `/` separators. */
  path: string;
  absolutePath: string;
  size: number;
  mtimeMs: number;
}

export type ExclusionReason = "too-large" | "binary" | "lockfile" | "generated";

export type WalkEntry =
  | { type: "file"; file: ProjectFile }
  | { type: "excluded"; path: string; reason: ExclusionReason };

export interface WalkOptions {
  /** Files larger than this are excluded ("too-large"). */
  maxFileBytes: number;
  signal?: AbortSignal;
}

/** Directories skipped wherever they are, ignored by .gitignore or not. */
const ALWAYS_SKIPPED_DIRECTORIES = new Set([".git", ".hg", ".svn", "node_modules"]);

const LOCKFILES = new Set([
  "package-lock.json",
  "pnpm-lock.yaml",
  "yarn.lock",
  "bun.lockb",
  "bun.lock",
  "npm-shrinkwrap.json",
  "Cargo.lock",
  "poetry.lock",
  "Pipfile.lock",
  "uv.lock",
  "composer.lock",
  "Gemfile.lock",
  "go.sum",
  "flake.lock",
]);

const GENERATED_SUFFIXES = [".min.js", ".min.css", ".map"];

/** Extensions that are binary without looking (the content check catches the rest). */
const BINARY_EXTENSIONS = new Set(
  (
    "png jpg jpeg gif webp ico bmp tif tiff avif heic psd pdf zip gz tgz bz2 xz zst 7z rar tar jar war " +
    "class so dylib dll exe bin o a lib obj wasm woff woff2 ttf otf eot mp3 mp4 m4a wav ogg flac mov avi mkv " +
    "webm sqlite sqlite3 db pyc pyo npy npz pkl parquet arrow feather onnx pt safetensors iso dmg img qcow2"
  )
    .split(" ")
    .map((extension) => `.${extension}`),
);

interface IgnoreLevel {
  /** The directory the .gitignore is in, relative to the root ("" for the root). */
  base: string;
  rules: Ignore;
}

export async function* walkProject(root: string, options: WalkOptions): AsyncGenerator<WalkEntry> {
  const pending: { directory: string; levels: IgnoreLevel[] }[] = [{ directory: "", levels: [] }];
  while (pending.length > 0) {
    throwIfAborted(options.signal, "the project walk");
    const { directory, levels: parentLevels } = pending.pop()!;
    const absoluteDirectory = join(root, directory);
    const levels = await withGitignore(parentLevels, absoluteDirectory, directory);
    let entries: Dirent[];
    try {
      entries = await readdir(absoluteDirectory, { withFileTypes: true });
    } catch (error) {
      // The root itself must be readable; a subdirectory that vanished or is unreadable is passed over.
      if (directory === "") throw error;
      continue;
    }
    entries.sort((left, right) => (left.name < right.name ? -1 : left.name > right.name ? 1 : 0));
    const subdirectories: string[] = [];
    for (const entry of entries) {
      const path = directory === "" ? entry.name : `${directory}/${entry.name}`;
      if (entry.isDirectory()) {
        if (!ALWAYS_SKIPPED_DIRECTORIES.has(entry.name) && !isIgnored(levels, path, true))
          subdirectories.push(path);
        continue;
      }
      if (!entry.isFile() || isIgnored(levels, path, false)) continue;
      const reason = exclusionByName(entry.name);
      if (reason !== undefined) {
        yield { type: "excluded", path, reason };
        continue;
      }
      const absolutePath = join(root, path);
      const info = await stat(absolutePath).catch(() => undefined);
      if (info === undefined) continue;
      if (info.size > options.maxFileBytes) {
        yield { type: "excluded", path, reason: "too-large" };
        continue;
      }
      yield { type: "file", file: { path, absolutePath, size: info.size, mtimeMs: info.mtimeMs } };
    }
    // Reversed so the stack pops them in name order (depth first, like `git ls-files`).
    for (const subdirectory of subdirectories.reverse()) pending.push({ directory: subdirectory, levels });
  }
}

function exclusionByName(name: string): ExclusionReason | undefined {
  if (LOCKFILES.has(name)) return "lockfile";
  const lower = name.toLowerCase();
  if (GENERATED_SUFFIXES.some((suffix) => lower.endsWith(suffix))) return "generated";
  if (BINARY_EXTENSIONS.has(extname(lower))) return "binary";
  return undefined;
}

/**
 * Git's own test for binary content: a NUL byte among the first 8000 bytes. Text in UTF-16 is
 * taken as binary too, as git does.
 */
export function looksBinary(content: Uint8Array): boolean {
  return content.subarray(0, 8000).includes(0);
}

async function withGitignore(
  levels: IgnoreLevel[],
  absoluteDirectory: string,
  base: string,
): Promise<IgnoreLevel[]> {
  let text: string;
  try {
    text = await readFile(join(absoluteDirectory, ".gitignore"), "utf8");
  } catch {
    return levels;
  }
  return [...levels, { base, rules: ignore().add(text) }];
}

/** Git's precedence: the deepest .gitignore with a rule for the path decides. */
function isIgnored(levels: IgnoreLevel[], path: string, isDirectory: boolean): boolean {
  let ignored = false;
  for (const level of levels) {
    const relative = level.base === "" ? path : path.slice(level.base.length + 1);
    const result = level.rules.test(isDirectory ? `${relative}/` : relative);
    if (result.ignored) ignored = true;
    else if (result.unignored) ignored = false;
  }
  return ignored;
}
