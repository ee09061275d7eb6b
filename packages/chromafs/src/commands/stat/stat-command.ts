import { posix } from "node:path";
import { rethrowIfFatal } from "@atrium/spec";
import { type Command, defineCommand, type ExecResult, type FsStat } from "just-bash";
import { defineFlags } from "../../flags/flag-table.js";
import { processOwner } from "../../fs/process-owner.js";
import { allocatedKiB } from "../ls/ls-long-format.js";
import { WrittenOutput } from "../written-order.js";

/** `%y`: `2026-12-01 06:59:24.895000000 +0000` in local time (nanoseconds from milliseconds). */
function humanTime(date: Date): string {
  const pad = (n: number, width = 2) => String(n).padStart(width, "0");
  const offset = -date.getTimezoneOffset();
  const sign = offset >= 0 ? "+" : "-";
  const zone = `${sign}${pad(Math.floor(Math.abs(offset) / 60))}${pad(Math.abs(offset) % 60)}`;
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())} ${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}.${pad(date.getMilliseconds(), 3)}000000 ${zone}`;
}

function fileType(stat: FsStat): string {
  if (stat.isDirectory) return "directory";
  if (!stat.isFile) return "character special file";
  return stat.size === 0 ? "regular empty file" : "regular file";
}

function permissions(stat: FsStat): string {
  const bits = stat.mode & 0o777;
  let text = stat.isDirectory ? "d" : stat.isFile ? "-" : "c";
  for (let shift = 6; shift >= 0; shift -= 3) {
    const part = (bits >> shift) & 7;
    text += (part & 4 ? "r" : "-") + (part & 2 ? "w" : "-") + (part & 1 ? "x" : "-");
  }
  return text;
}

/** The directives a page has a value for; pages have no inode, device or birth time. */
const DIRECTIVES: Record<string, (name: string, stat: FsStat, subdirectories: number) => string> = {
  n: (name) => name,
  N: (name) => `'${name}'`,
  s: (_n, stat) => String(stat.isDirectory ? 4096 : stat.size),
  Y: (_n, stat) => String(Math.floor(stat.mtime.getTime() / 1000)),
  y: (_n, stat) => humanTime(stat.mtime),
  X: (_n, stat) => String(Math.floor(stat.mtime.getTime() / 1000)),
  x: (_n, stat) => humanTime(stat.mtime),
  Z: (_n, stat) => String(Math.floor(stat.mtime.getTime() / 1000)),
  z: (_n, stat) => humanTime(stat.mtime),
  F: (_n, stat) => fileType(stat),
  a: (_n, stat) => (stat.mode & 0o7777).toString(8),
  A: (_n, stat) => permissions(stat),
  // Pages have no owner: the running user's, as `ls -l` shows them.
  U: () => processOwner().user,
  G: () => processOwner().group,
  u: () => String(processOwner().uid),
  g: () => String(processOwner().gid),
  b: (_n, stat) => String((allocatedKiB(stat) * 1024) / 512),
  B: () => "512",
  o: () => "4096",
  h: (_n, stat, subdirectories) => String(stat.isDirectory ? 2 + subdirectories : 1),
  "%": () => "%",
};

/** Expands a `-c` format; null when it uses a directive this stat does not model. */
export function formatStat(format: string, name: string, stat: FsStat, subdirectories = 0): string | null {
  let out = "";
  for (let i = 0; i < format.length; i++) {
    const char = format[i]!;
    if (char !== "%") {
      out += char;
      continue;
    }
    const directive = format[++i];
    const expand = directive === undefined ? undefined : DIRECTIVES[directive];
    if (!expand) return null;
    out += expand(name, stat, subdirectories);
  }
  return out;
}

const STAT_FLAGS = defineFlags<{ format: string | undefined }>([
  {
    short: "c",
    long: "format",
    value: "required",
    apply: (o, v) => {
      o.format = v;
    },
  },
  // Pages are no links: following them changes nothing.
  { short: "L", long: "dereference", apply: () => {} },
]);

/**
 * GNU `stat -c FORMAT` / `--format=FORMAT` (`%n %N %s %Y %y %X %x %Z %z %F %a %A %U %G %u %g
 * %h %b %B %o %%`), one line per operand, `cannot statx 'X'` with status 1. The default report
 * (device, inode, birth) and other directives go to just-bash's stat.
 */
export function createStatCommand(): Command {
  return defineCommand("stat", async (args, ctx): Promise<ExecResult> => {
    const fallback = () =>
      ctx.origCommand
        ? ctx.origCommand(args)
        : Promise.resolve({ stdout: "", stderr: "stat: unsupported\n", exitCode: 1 });
    const parsed = STAT_FLAGS.parse(args, { format: undefined });
    if (!parsed.ok) return fallback();
    const { format } = parsed.options;
    const { operands } = parsed;
    if (format === undefined || operands.length === 0) return fallback();
    const output = new WrittenOutput();
    let failed = false;
    for (const operand of operands) {
      let stat: FsStat;
      try {
        stat = await ctx.fs.stat(posix.resolve(ctx.cwd, operand));
      } catch (error) {
        rethrowIfFatal(error);
        output.err(`stat: cannot statx '${operand}': No such file or directory\n`);
        failed = true;
        continue;
      }
      const path = posix.resolve(ctx.cwd, operand);
      let subdirectories = 0;
      if (stat.isDirectory && format.includes("%h")) {
        for (const name of await ctx.fs.readdir(path)) {
          const child = await ctx.fs.stat(posix.join(path, name)).catch(() => null);
          if (child?.isDirectory) subdirectories++;
        }
      }
      const line = formatStat(format, operand, stat, subdirectories);
      if (line === null) return fallback();
      output.out(`${line}\n`);
    }
    return output.result(failed ? 1 : 0);
  });
}
