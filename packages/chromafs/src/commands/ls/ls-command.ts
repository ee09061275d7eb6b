import { posix } from "node:path";
import { rethrowIfFatal } from "@atrium/spec";
import { type Command, defineCommand, type ExecResult, type FsStat, type IFileSystem } from "just-bash";
import { defineFlags, sets } from "../../flags/flag-table.js";
import { compareCodePoints } from "../sort/sort-keys.js";
import { inWrittenOrder } from "../written-order.js";
import { allocatedKiB, humanSize, type LongEntry, longLines } from "./ls-long-format.js";

interface LsOptions {
  all: boolean;
  almostAll: boolean;
  directory: boolean;
  long: boolean;
  human: boolean;
  recursive: boolean;
  reverse: boolean;
  sort: "name" | "time" | "size";
}

const LS_FLAGS = defineFlags<LsOptions>([
  { short: "1", apply: () => {} },
  { short: "a", long: "all", apply: sets({ all: true }) },
  { short: "A", long: "almost-all", apply: sets({ almostAll: true }) },
  { short: "d", long: "directory", apply: sets({ directory: true }) },
  { short: "l", apply: sets({ long: true }) },
  { short: "h", long: "human-readable", apply: sets({ human: true }) },
  { short: "R", long: "recursive", apply: sets({ recursive: true }) },
  { short: "r", long: "reverse", apply: sets({ reverse: true }) },
  { short: "t", apply: sets({ sort: "time" }) },
  { short: "S", apply: sets({ sort: "size" }) },
]);

interface Listed {
  name: string;
  path: string;
  stat: FsStat;
}

/**
 * GNU `ls` as it prints to a pipe (one name a line): names in code point order (C.UTF-8), `-t`
 * newest first and `-S` largest first (ties by name), `-r`; file operands first, then each
 * directory operand under a `DIR:` heading when there are several operands or `-R` (headings
 * join GNU's way: `/` + `a` = `/a`, `zh/` + `ai` = `zh/ai`); `-a`/`-A`, `-d`, `-l` (see
 * `ls-long-format.ts`) with `total` per directory, `-h`; `cannot access 'X'` with status 2.
 * Other options (columns, `-F`, `-i`...) go to just-bash's ls.
 */
export function createLsCommand(): Command {
  return defineCommand("ls", async (args, ctx): Promise<ExecResult> => {
    const parsed = LS_FLAGS.parse(args, {
      all: false,
      almostAll: false,
      directory: false,
      long: false,
      human: false,
      recursive: false,
      reverse: false,
      sort: "name",
    });
    if (!parsed.ok) {
      if (ctx.origCommand) return ctx.origCommand(args);
      return { stdout: "", stderr: `ls: invalid option -- '${parsed.unsupported}'\n`, exitCode: 2 };
    }
    const { options, operands } = parsed;
    return listOperands(
      operands.length === 0 ? ["."] : operands,
      operands.length > 1,
      options,
      ctx.cwd,
      ctx.fs,
    );
  });
}

async function statOrNull(fs: IFileSystem, path: string): Promise<FsStat | null> {
  try {
    return await fs.stat(path);
  } catch (error) {
    rethrowIfFatal(error);
    return null;
  }
}

function order(entries: Listed[], options: LsOptions): Listed[] {
  const byName = (a: Listed, b: Listed) => compareCodePoints(a.name, b.name);
  const compare =
    options.sort === "time"
      ? (a: Listed, b: Listed) => b.stat.mtime.getTime() - a.stat.mtime.getTime() || byName(a, b)
      : options.sort === "size"
        ? (a: Listed, b: Listed) => size(b.stat) - size(a.stat) || byName(a, b)
        : byName;
  const sorted = [...entries].sort(compare);
  return options.reverse ? sorted.reverse() : sorted;
}

function size(stat: FsStat): number {
  return stat.isDirectory ? 4096 : stat.size;
}

async function listOperands(
  operands: readonly string[],
  several: boolean,
  options: LsOptions,
  cwd: string,
  fs: IFileSystem,
): Promise<ExecResult> {
  let stderr = "";
  let failed = false;
  const files: Listed[] = [];
  const directories: Listed[] = [];
  for (const operand of operands) {
    const path = posix.resolve(cwd, operand);
    const stat = await statOrNull(fs, path);
    if (!stat || (/\/\.?$/.test(operand) && !stat.isDirectory)) {
      stderr += `ls: cannot access '${operand}': ${stat ? "Not a directory" : "No such file or directory"}\n`;
      failed = true;
      continue;
    }
    (stat.isDirectory && !options.directory ? directories : files).push({ name: operand, path, stat });
  }
  const sections: string[] = [];
  if (files.length > 0) sections.push(await render(order(files, options), options, fs, false));
  const heading = several || options.recursive || files.length > 0 || failed;
  const queue = order(directories, options);
  while (queue.length > 0) {
    const directory = queue.shift()!;
    const { text, subdirectories } = await listDirectory(directory, options, fs);
    sections.push(heading ? `${directory.name}:\n${text}` : text);
    if (options.recursive) queue.unshift(...subdirectories);
  }
  const stdout = sections.join("\n");
  // GNU ls reports the operands it cannot access before it lists anything.
  return inWrittenOrder({ stdout, stderr, exitCode: failed ? 2 : 0 }, [
    { stream: "stderr", text: stderr },
    { stream: "stdout", text: stdout },
  ]);
}

async function listDirectory(
  directory: Listed,
  options: LsOptions,
  fs: IFileSystem,
): Promise<{ text: string; subdirectories: Listed[] }> {
  const names = await fs.readdir(directory.path);
  const entries: Listed[] = [];
  if (options.all) {
    entries.push({ name: ".", path: directory.path, stat: directory.stat });
    const parent = posix.dirname(directory.path);
    entries.push({ name: "..", path: parent, stat: (await statOrNull(fs, parent)) ?? directory.stat });
  }
  for (const name of names) {
    if (name.startsWith(".") && !options.all && !options.almostAll) continue;
    const path = directory.path === "/" ? `/${name}` : `${directory.path}/${name}`;
    const stat = await statOrNull(fs, path);
    if (stat) entries.push({ name, path, stat });
  }
  const sorted = order(entries, options);
  let text = await render(sorted, options, fs, true);
  if (options.long) {
    const total = sorted.reduce((sum, entry) => sum + allocatedKiB(entry.stat), 0);
    text = `total ${options.human ? humanSize(total * 1024) : total}\n${text}`;
  }
  const joined = (name: string) =>
    directory.name.endsWith("/") ? `${directory.name}${name}` : `${directory.name}/${name}`;
  const subdirectories = sorted
    .filter((entry) => entry.stat.isDirectory && entry.name !== "." && entry.name !== "..")
    .map((entry) => ({ ...entry, name: joined(entry.name) }));
  return { text, subdirectories };
}

async function render(
  entries: readonly Listed[],
  options: LsOptions,
  fs: IFileSystem,
  _inDirectory: boolean,
): Promise<string> {
  if (entries.length === 0) return "";
  if (!options.long) return entries.map((entry) => `${entry.name}\n`).join("");
  const long: LongEntry[] = [];
  for (const entry of entries) {
    let subdirectories = 0;
    if (entry.stat.isDirectory) {
      for (const name of await fs.readdir(entry.path)) {
        const child = entry.path === "/" ? `/${name}` : `${entry.path}/${name}`;
        if ((await statOrNull(fs, child))?.isDirectory) subdirectories++;
      }
    }
    long.push({ name: entry.name, stat: entry.stat, subdirectories });
  }
  return longLines(long, options.human)
    .map((line) => `${line}\n`)
    .join("");
}
