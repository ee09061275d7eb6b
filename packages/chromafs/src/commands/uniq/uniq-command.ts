import { type Command, defineCommand, type ExecResult } from "just-bash";
import { countValue, defineFlags, sets } from "../../flags/flag-table.js";
import { joinLines, readOperand, textLines } from "../command-input.js";

interface UniqOptions {
  count: boolean;
  repeated: boolean;
  unique: boolean;
  ignoreCase: boolean;
  skipFields: number;
  skipChars: number;
  compareChars: number;
}

const UNIQ_FLAGS = defineFlags<UniqOptions>([
  { short: "c", long: "count", apply: sets({ count: true }) },
  { short: "d", long: "repeated", apply: sets({ repeated: true }) },
  { short: "u", long: "unique", apply: sets({ unique: true }) },
  { short: "i", long: "ignore-case", apply: sets({ ignoreCase: true }) },
  {
    short: "f",
    value: "required",
    apply: (o, v) =>
      countValue(v, (n) => {
        o.skipFields = n;
      }),
  },
  {
    short: "s",
    value: "required",
    apply: (o, v) =>
      countValue(v, (n) => {
        o.skipChars = n;
      }),
  },
  {
    short: "w",
    value: "required",
    apply: (o, v) =>
      countValue(v, (n) => {
        o.compareChars = n;
      }),
  },
]);

/**
 * GNU `uniq`: adjacent equal lines folded; `-c` prefixes the count right-aligned in 7 columns
 * and a space, `-d` only repeated lines, `-u` only unique ones, `-i` compares case-folded,
 * `-f N`/`-s N`/`-w N` skip fields and characters or compare a prefix. One operand is the input;
 * a second (the output file) and other options go to just-bash's uniq.
 */
export function createUniqCommand(): Command {
  return defineCommand("uniq", async (args, ctx): Promise<ExecResult> => {
    const fallback = () => (ctx.origCommand ? ctx.origCommand(args) : Promise.resolve(bad(args)));
    const parsed = UNIQ_FLAGS.parse(args, {
      count: false,
      repeated: false,
      unique: false,
      ignoreCase: false,
      skipFields: 0,
      skipChars: 0,
      compareChars: Number.POSITIVE_INFINITY,
    });
    if (!parsed.ok) return fallback();
    const { count, repeated, unique, ignoreCase, skipFields, skipChars, compareChars } = parsed.options;
    const { operands } = parsed;
    if (operands.length > 1) return fallback();
    const read = await readOperand(ctx, operands[0] ?? "-");
    if (!read.ok) return { stdout: "", stderr: `uniq: ${operands[0]}: ${read.reason}\n`, exitCode: 1 };
    const plainKey = skipFields === 0 && skipChars === 0 && !Number.isFinite(compareChars);
    const key = (line: string) => {
      if (plainKey) return ignoreCase ? line.toLowerCase() : line;
      let rest = line;
      for (let f = 0; f < skipFields; f++) rest = rest.replace(/^[ \t]*[^ \t]*/, "");
      const chars = [...rest].slice(skipChars);
      const compared = (Number.isFinite(compareChars) ? chars.slice(0, compareChars) : chars).join("");
      return ignoreCase ? compared.toLowerCase() : compared;
    };
    const out: string[] = [];
    const lines = textLines(read.text);
    for (let i = 0; i < lines.length; ) {
      const first = key(lines[i]!);
      let j = i + 1;
      while (j < lines.length && key(lines[j]!) === first) j++;
      const n = j - i;
      if (!((repeated && n < 2) || (unique && n > 1))) {
        out.push(count ? `${String(n).padStart(7)} ${lines[i]}` : lines[i]!);
      }
      i = j;
    }
    return { stdout: joinLines(out), stderr: "", exitCode: 0 };
  });
}

function bad(args: readonly string[]): ExecResult {
  return { stdout: "", stderr: `uniq: unsupported arguments: ${args.join(" ")}\n`, exitCode: 1 };
}
