import { type Command, defineCommand, type ExecResult } from "just-bash";
import { readOperand } from "../command-input.js";
import { WrittenOutput } from "../written-order.js";

interface Selection {
  /** Count lines (`-n`) or bytes (`-c`). */
  unit: "lines" | "bytes";
  count: number;
  /** head `-n -N` (all but the last N) / tail `-n +N` (from the Nth on). */
  from: boolean;
}

type Parsed =
  | { ok: true; selection: Selection; operands: string[]; headers: boolean | undefined }
  | { ok: false };

function parse(name: "head" | "tail", args: readonly string[]): Parsed {
  const selection: Selection = { unit: "lines", count: 10, from: false };
  let headers: boolean | undefined;
  const operands: string[] = [];
  const setCount = (unit: "lines" | "bytes", value: string | undefined): boolean => {
    const match = /^([+-]?)(\d+)$/.exec(value ?? "");
    if (!match) return false;
    selection.unit = unit;
    selection.count = Number(match[2]);
    selection.from = name === "head" ? match[1] === "-" : match[1] === "+";
    return true;
  };
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === "--") {
      operands.push(...args.slice(i + 1));
      break;
    }
    if (i === 0 && name === "tail" && /^\+\d+$/.test(arg) && args.length <= 2) {
      setCount("lines", arg);
      continue;
    }
    if (!arg.startsWith("-") || arg === "-") {
      operands.push(arg);
      continue;
    }
    const long = /^--(lines|bytes)=(.*)$/.exec(arg);
    if (long) {
      if (!setCount(long[1] === "lines" ? "lines" : "bytes", long[2])) return { ok: false };
      continue;
    }
    if (arg === "--quiet" || arg === "--silent") headers = false;
    else if (arg === "--verbose") headers = true;
    else if (/^-\d+$/.test(arg)) {
      if (!setCount("lines", name === "tail" ? arg.slice(1) : arg.slice(1))) return { ok: false };
    } else if (/^-[nc]/.test(arg)) {
      const value = arg.length > 2 ? arg.slice(2) : args[++i];
      if (!setCount(arg[1] === "n" ? "lines" : "bytes", value)) return { ok: false };
    } else if (/^-[qv]+$/.test(arg)) headers = arg.endsWith("v");
    else return { ok: false };
  }
  return { ok: true, selection, operands, headers };
}

/** Line-start offsets after each newline: `text.slice(0, ends[k])` is the first k+1 lines. */
function lineEnds(text: string): number[] {
  const ends: number[] = [];
  for (let at = text.indexOf("\n"); at !== -1; at = text.indexOf("\n", at + 1)) ends.push(at + 1);
  if (text !== "" && !text.endsWith("\n")) ends.push(text.length);
  return ends;
}

function select(name: "head" | "tail", text: string, { unit, count, from }: Selection): string {
  if (unit === "bytes") {
    const bytes = Buffer.from(text);
    const cut =
      name === "head"
        ? bytes.subarray(0, from ? Math.max(0, bytes.length - count) : count)
        : bytes.subarray(from ? Math.max(0, count - 1) : Math.max(0, bytes.length - count));
    return cut.toString("utf8");
  }
  const ends = lineEnds(text);
  const offset = (lines: number) => (lines <= 0 ? 0 : lines >= ends.length ? text.length : ends[lines - 1]!);
  if (name === "head") return text.slice(0, offset(from ? ends.length - count : count));
  return text.slice(offset(from ? count - 1 : ends.length - count));
}

/**
 * GNU `head` and `tail`: `-n N`, `-N`, `-c N`, head's `-n -N` and tail's `-n +N` (and
 * `tail +N`), `==> NAME <==` headers for several operands (a blank line between, also for a
 * directory, which then gets `error reading 'X': Is a directory`), `-q`/`-v`, `cannot open 'X'
 * for reading` for a missing one (status 1), a last line without newline kept as it is.
 * What they do not model (`-f`, `-z`...) goes to just-bash's.
 */
export function createHeadTailCommands(): Command[] {
  return (["head", "tail"] as const).map((name) =>
    defineCommand(name, async (args, ctx): Promise<ExecResult> => {
      const parsed = parse(name, args);
      if (!parsed.ok) {
        if (ctx.origCommand) return ctx.origCommand(args);
        return { stdout: "", stderr: `${name}: unsupported arguments\n`, exitCode: 1 };
      }
      const operands = parsed.operands.length === 0 ? ["-"] : parsed.operands;
      if (name === "tail" && operands.length > 1 && args.some((arg) => /^[+-]\d+$/.test(arg))) {
        const number = args.find((arg) => /^[+-]\d+$/.test(arg))!.slice(1);
        return { stdout: "", stderr: `tail: option used in invalid context -- ${number[0]}\n`, exitCode: 1 };
      }
      const headers = parsed.headers ?? operands.length > 1;
      const output = new WrittenOutput();
      let failed = false;
      let first = true;
      for (const operand of operands) {
        const read = await readOperand(ctx, operand);
        const shown = operand === "-" ? "standard input" : operand;
        if (!read.ok && read.reason !== "Is a directory") {
          output.err(`${name}: cannot open '${operand}' for reading: ${read.reason}\n`);
          failed = true;
          continue;
        }
        if (headers) output.out(`${first ? "" : "\n"}==> ${shown} <==\n`);
        first = false;
        if (!read.ok) {
          output.err(`${name}: error reading '${operand}': Is a directory\n`);
          failed = true;
        } else output.out(select(name, read.text, parsed.selection));
      }
      return output.result(failed ? 1 : 0);
    }),
  );
}
