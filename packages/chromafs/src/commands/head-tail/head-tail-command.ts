import { type Command, defineCommand, type ExecResult } from "just-bash";
import { defineFlags, sets } from "../../flags/flag-table.js";
import { readOperand } from "../command-input.js";
import { WrittenOutput } from "../written-order.js";

interface Selection {
  /** Count lines (`-n`) or bytes (`-c`). */
  unit: "lines" | "bytes";
  count: number;
  /** head `-n -N` (all but the last N) / tail `-n +N` (from the Nth on). */
  from: boolean;
}

interface HeadTailOptions {
  selection: Selection;
  /** `-q`/`-v`: no headers, or headers even for one operand. */
  headers: boolean | undefined;
}

/** Sets `-n`/`-c`'s count; head's `-N` is all but the last N, tail's `+N` from the Nth on. */
function setCount(name: "head" | "tail", o: HeadTailOptions, unit: "lines" | "bytes", value: string) {
  const match = /^([+-]?)(\d+)$/.exec(value);
  if (!match) return `invalid number of ${unit}: '${value}'`;
  o.selection = {
    unit,
    count: Number(match[2]),
    from: name === "head" ? match[1] === "-" : match[1] === "+",
  };
  return undefined;
}

const flagsOf = (name: "head" | "tail") =>
  defineFlags<HeadTailOptions>(
    [
      { short: "n", long: "lines", value: "required", apply: (o, v) => setCount(name, o, "lines", v) },
      { short: "c", long: "bytes", value: "required", apply: (o, v) => setCount(name, o, "bytes", v) },
      { short: "q", long: ["quiet", "silent"], apply: sets({ headers: false }) },
      { short: "v", long: "verbose", apply: sets({ headers: true }) },
    ],
    // `-N`: the last (head: first) N lines.
    { digits: (o, digits) => setCount(name, o, "lines", digits) },
  );
const FLAGS = { head: flagsOf("head"), tail: flagsOf("tail") };

/** head's or tail's command line; null for an option or value it does not model. */
function parse(name: "head" | "tail", args: readonly string[]) {
  const options: HeadTailOptions = {
    selection: { unit: "lines", count: 10, from: false },
    headers: undefined,
  };
  // `tail +N [FILE]`: GNU's obsolete spelling of `tail -n +N`.
  const obsolete = name === "tail" && /^\+\d+$/.test(args[0] ?? "") && args.length <= 2;
  if (obsolete) setCount(name, options, "lines", args[0] as string);
  const parsed = FLAGS[name].parse(obsolete ? args.slice(1) : args, options);
  return parsed.ok ? { ...parsed.options, operands: parsed.operands } : null;
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
      if (!parsed) {
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
