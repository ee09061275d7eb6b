import { posix } from "node:path";
import { rethrowIfFatal } from "@atrium/spec";
import {
  type Command,
  defineCommand,
  type ExecResult,
  type IFileSystem,
  parse,
  type TransformPlugin,
} from "just-bash";
import picomatch from "picomatch";
import { compareCodePoints } from "../commands/sort/sort-keys.js";

/** The command the rewritten words call; a name no one types. */
export const DIRECTORY_GLOB_COMMAND = "__chromafs_directory_glob";

type Node = Record<string, unknown>;

function isDirectoryGlobWord(node: Node): boolean {
  if (node.type !== "Word" || !Array.isArray(node.parts)) return false;
  const parts = node.parts as Node[];
  const last = parts[parts.length - 1];
  return (
    parts.some((part) => part.type === "Glob") &&
    last?.type === "Literal" &&
    typeof last.value === "string" &&
    last.value.endsWith("/")
  );
}

/**
 * A glob ending in a slash (`echo *` + `/`, `$R/z*` + `/`) names directories only, each printed with its slash;
 * just-bash 3.4.2 drops the slash and matches files too. This transform rewrites such a word into
 * a command substitution of `DIRECTORY_GLOB_COMMAND` with the pattern's parts as quoted arguments, whose output is the directories — so names with blanks split, a known
 * difference (see the README).
 */
export function directoryGlobPlugin(): TransformPlugin {
  const rewrite = (value: unknown): void => {
    if (Array.isArray(value)) {
      for (const item of value) rewrite(item);
      return;
    }
    if (value === null || typeof value !== "object") return;
    const node = value as Node;
    if (isDirectoryGlobWord(node)) {
      // One argument per part, each quoted, so nothing in the pattern is expanded twice
      // (just-bash globs a quoted `'*'` when the word also holds an unquoted `$VAR`).
      const script = parse(DIRECTORY_GLOB_COMMAND);
      const command = script.statements[0]!.pipelines[0]!.commands[0] as unknown as { args: Node[] };
      command.args = (node.parts as Node[]).map((part) => ({
        type: "Word",
        parts: [
          part.type === "Glob"
            ? { type: "SingleQuoted", value: part.pattern }
            : part.type === "Literal"
              ? { type: "SingleQuoted", value: part.value }
              : { type: "DoubleQuoted", parts: [part] },
        ],
      }));
      node.parts = [{ type: "CommandSubstitution", body: script, legacy: false }];
      return;
    }
    for (const key of Object.keys(node)) rewrite(node[key]);
  };
  return {
    name: "chromafs-directory-glob",
    transform({ ast }) {
      rewrite(ast);
      return { ast };
    },
  };
}

const GLOB_CHARS = /[*?[]/;

async function isDirectory(fs: IFileSystem, path: string): Promise<boolean> {
  try {
    return (await fs.stat(path)).isDirectory;
  } catch (error) {
    rethrowIfFatal(error);
    return false;
  }
}

/** The directories `pattern` (ending in `/`) matches, each with its slash, in code point order. */
export async function expandDirectoryGlob(pattern: string, cwd: string, fs: IFileSystem): Promise<string[]> {
  const absolute = pattern.startsWith("/");
  const segments = pattern.split("/").filter((segment) => segment !== "");
  let found: { shown: string; path: string }[] = [{ shown: absolute ? "/" : "", path: absolute ? "/" : cwd }];
  for (const segment of segments) {
    const next: typeof found = [];
    const join = (shown: string, name: string) =>
      shown === "" ? name : shown.endsWith("/") ? `${shown}${name}` : `${shown}/${name}`;
    for (const { shown, path } of found) {
      if (!GLOB_CHARS.test(segment)) {
        next.push({ shown: join(shown, segment), path: posix.join(path, segment) });
        continue;
      }
      const matches = picomatch(segment, { dot: segment.startsWith(".") });
      let names: string[];
      try {
        names = await fs.readdir(path);
      } catch (error) {
        rethrowIfFatal(error);
        continue;
      }
      for (const name of names) {
        if (matches(name)) next.push({ shown: join(shown, name), path: posix.join(path, name) });
      }
    }
    found = next;
  }
  const directories: string[] = [];
  for (const { shown, path } of found) if (await isDirectory(fs, path)) directories.push(`${shown}/`);
  return directories.sort(compareCodePoints);
}

/** What the rewritten words run: the directories, or the pattern itself when none match (bash's default). */
export function createDirectoryGlobCommand(): Command {
  return defineCommand(DIRECTORY_GLOB_COMMAND, async (args, ctx): Promise<ExecResult> => {
    const pattern = args.join("");
    const directories = await expandDirectoryGlob(pattern, ctx.cwd, ctx.fs);
    return {
      stdout: `${(directories.length > 0 ? directories : [pattern]).join("\n")}\n`,
      stderr: "",
      exitCode: 0,
    };
  });
}
