import { type Command, defineCommand, type ExecResult } from "just-bash";
import { joinLines, readOperand, textLines } from "../command-input.js";

/**
 * GNU `uniq`: adjacent equal lines folded; `-c` prefixes the count right-aligned in 7 columns
 * and a space, `-d` only repeated lines, `-u` only unique ones, `-i` compares case-folded,
 * `-f N`/`-s N`/`-w N` skip fields and characters or compare a prefix. One operand is the input;
 * a second (the output file) and other options go to just-bash's uniq.
 */
export function createUniqCommand(): Command {
  return defineCommand("uniq", async (args, ctx): Promise<ExecResult> => {
    let count = false;
    let repeated = false;
    let unique = false;
    let ignoreCase = false;
    let skipFields = 0;
    let skipChars = 0;
    let compareChars = Number.POSITIVE_INFINITY;
    const operands: string[] = [];
    const fallback = () => (ctx.origCommand ? ctx.origCommand(args) : Promise.resolve(bad(args)));
    for (let i = 0; i < args.length; i++) {
      const arg = args[i]!;
      if (arg === "--") {
        operands.push(...args.slice(i + 1));
        break;
      }
      if (!arg.startsWith("-") || arg === "-") {
        operands.push(arg);
        continue;
      }
      const long: Record<string, () => void> = {
        "--count": () => (count = true),
        "--repeated": () => (repeated = true),
        "--unique": () => (unique = true),
        "--ignore-case": () => (ignoreCase = true),
      };
      if (arg.startsWith("--")) {
        if (!long[arg]) return fallback();
        long[arg]!();
        continue;
      }
      for (let f = 1; f < arg.length; f++) {
        const flag = arg[f]!;
        if (flag === "c") count = true;
        else if (flag === "d") repeated = true;
        else if (flag === "u") unique = true;
        else if (flag === "i") ignoreCase = true;
        else if ("fsw".includes(flag)) {
          const value = f + 1 < arg.length ? arg.slice(f + 1) : args[++i];
          if (value === undefined || !/^\d+$/.test(value)) return fallback();
          if (flag === "f") skipFields = Number(value);
          else if (flag === "s") skipChars = Number(value);
          else compareChars = Number(value);
          break;
        } else return fallback();
      }
    }
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
