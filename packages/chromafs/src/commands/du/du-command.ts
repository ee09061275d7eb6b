import { posix } from "node:path";
import { rethrowIfFatal } from "@atrium/spec";
import { type Command, defineCommand, type ExecResult, type FsStat, type IFileSystem } from "just-bash";
import { countValue, defineFlags, sets } from "../../flags/flag-table.js";
import { allocatedKiB, humanSize } from "../ls/ls-long-format.js";
import { WrittenOutput } from "../written-order.js";

interface DuOptions {
  all: boolean;
  summarize: boolean;
  human: boolean;
  total: boolean;
  maxDepth: number;
  apparent: boolean;
}

const DU_FLAGS = defineFlags<DuOptions>([
  { short: "a", long: "all", apply: sets({ all: true }) },
  { short: "s", long: "summarize", apply: sets({ summarize: true }) },
  { short: "h", long: "human-readable", apply: sets({ human: true }) },
  { short: "c", long: "total", apply: sets({ total: true }) },
  { short: "b", long: ["apparent-size", "bytes"], apply: sets({ apparent: true }) },
  // KiB, the default unit.
  { short: "k", apply: () => {} },
  {
    short: "d",
    long: "max-depth",
    value: "required",
    apply: (o, v) =>
      countValue(v, (depth) => {
        o.maxDepth = depth;
      }),
  },
]);

/**
 * GNU `du`: space in KiB as a 4 KiB-block filesystem allocates it (a directory's own block plus
 * everything below; see `allocatedKiB`), directories after their contents, `-a` files too,
 * `-s` operands only, `-d N`, `-c` a `total` line, `-h` GNU's rounded-up sizes, `-b`/
 * `--apparent-size` bytes. Names join GNU's way (`dir/` + `x` = `dir/x`). Other options go to
 * just-bash's du.
 */
export function createDuCommand(): Command {
  return defineCommand("du", async (args, ctx): Promise<ExecResult> => {
    const parsed = DU_FLAGS.parse(args, {
      all: false,
      summarize: false,
      human: false,
      total: false,
      maxDepth: Infinity,
      apparent: false,
    });
    if (!parsed.ok) {
      if (ctx.origCommand) return ctx.origCommand(args);
      return { stdout: "", stderr: "du: unsupported option\n", exitCode: 1 };
    }
    const { options, operands } = parsed;
    if (options.summarize) options.maxDepth = 0;
    const output = new WrittenOutput();
    let failed = false;
    let grand = 0;
    const show = (amount: number, name: string) => {
      const text = options.apparent
        ? options.human
          ? humanSize(amount)
          : String(amount)
        : options.human
          ? humanSize(amount * 1024)
          : String(amount);
      output.out(`${options.human && amount === 0 ? "0" : text}\t${name}\n`);
    };
    const measure = (stat: FsStat) =>
      options.apparent ? (stat.isDirectory ? 4096 : stat.size) : allocatedKiB(stat);
    const walk = async (path: string, name: string, stat: FsStat, depth: number): Promise<number> => {
      let sum = measure(stat);
      if (stat.isDirectory) {
        for (const child of await ctx.fs.readdir(path)) {
          const childPath = path === "/" ? `/${child}` : `${path}/${child}`;
          const childStat = await statOrNull(ctx.fs, childPath);
          if (!childStat) continue;
          const childName = name.endsWith("/") ? `${name}${child}` : `${name}/${child}`;
          sum += await walk(childPath, childName, childStat, depth + 1);
        }
      }
      if (depth <= options.maxDepth && (stat.isDirectory || options.all || depth === 0)) show(sum, name);
      return sum;
    };
    for (const operand of operands.length === 0 ? ["."] : operands) {
      const path = posix.resolve(ctx.cwd, operand);
      const stat = await statOrNull(ctx.fs, path);
      if (!stat) {
        output.err(`du: cannot access '${operand}': No such file or directory\n`);
        failed = true;
        continue;
      }
      grand += await walk(path, operand, stat, 0);
    }
    if (options.total) show(grand, "total");
    return output.result(failed ? 1 : 0);
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
