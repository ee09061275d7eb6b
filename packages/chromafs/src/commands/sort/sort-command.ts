import { type Command, defineCommand, type ExecResult } from "just-bash";
import { joinLines, readOperand, textLines } from "../command-input.js";
import { type KeyFlags, parseKey, type SortKey, type SortSpec } from "./sort-keys.js";
import { sortedLines } from "./sorted-lines.js";

const GLOBAL_FLAGS: Record<string, keyof KeyFlags> = {
  n: "numeric",
  f: "fold",
  b: "blanks",
  r: "reverse",
  "--numeric-sort": "numeric",
  "--ignore-case": "fold",
  "--ignore-leading-blanks": "blanks",
  "--reverse": "reverse",
};

/**
 * GNU `sort` under LC_ALL=C.UTF-8: code point (UTF-8 byte) order, `-n -r -f -b -k -t -u -s`,
 * the last-resort whole-line comparison GNU applies to lines whose keys are equal (not with
 * `-s`/`-u`), `-u` keeping the first line of each equal run. Options it does not model (`-o`,
 * `-c`, `-h`, `-g`, `-V`, `-M`, `-z`...) go to just-bash's sort.
 */
export function createSortCommand(): Command {
  return defineCommand("sort", async (args, ctx): Promise<ExecResult> => {
    const global: KeyFlags = { numeric: false, fold: false, blanks: false, reverse: false };
    const keyTexts: string[] = [];
    let separator: string | null = null;
    let unique = false;
    let stable = false;
    const operands: string[] = [];
    const fallback = () =>
      ctx.origCommand
        ? ctx.origCommand(args)
        : Promise.resolve({ stdout: "", stderr: "sort: unsupported option\n", exitCode: 2 });
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
      if (arg.startsWith("--")) {
        const [name, value] = arg.includes("=")
          ? [arg.slice(0, arg.indexOf("=")), arg.slice(arg.indexOf("=") + 1)]
          : [arg, undefined];
        if (GLOBAL_FLAGS[name] && value === undefined) global[GLOBAL_FLAGS[name]!] = true;
        else if (name === "--unique" && value === undefined) unique = true;
        else if (name === "--stable" && value === undefined) stable = true;
        else if (name === "--key" && (value ?? args[i + 1]) !== undefined) keyTexts.push(value ?? args[++i]!);
        else if (name === "--field-separator" && (value ?? args[i + 1]) !== undefined)
          separator = value ?? args[++i]!;
        else return fallback();
        continue;
      }
      for (let f = 1; f < arg.length; f++) {
        const flag = arg[f]!;
        if (GLOBAL_FLAGS[flag]) global[GLOBAL_FLAGS[flag]!] = true;
        else if (flag === "u") unique = true;
        else if (flag === "s") stable = true;
        else if (flag === "k" || flag === "t") {
          const value = f + 1 < arg.length ? arg.slice(f + 1) : args[++i];
          if (value === undefined) return fallback();
          if (flag === "k") keyTexts.push(value);
          else separator = value;
          break;
        } else return fallback();
      }
    }
    if (separator === "") return usageError("empty tab");
    // GNU takes one byte: a character of several UTF-8 bytes is a "multi-character tab" too.
    if (separator !== null && (separator.length !== 1 || separator.charCodeAt(0) > 0x7f))
      return usageError(`multi-character tab \u2018${separator}\u2019`);
    const keys: SortKey[] = [];
    for (const text of keyTexts) {
      const key = parseKey(text, global);
      if (key === null) return fallback();
      if ("error" in key) return usageError(key.error);
      keys.push(key);
    }
    const spec: SortSpec = {
      keys,
      global,
      separator,
      noLastResort: stable || unique,
    };
    let lines: string[] = [];
    for (const operand of operands.length === 0 ? ["-"] : operands) {
      const read = await readOperand(ctx, operand);
      if (!read.ok)
        return { stdout: "", stderr: `sort: cannot read: ${operand}: ${read.reason}\n`, exitCode: 2 };
      // concat, not push(...): an input of a few hundred thousand lines overflows the call stack.
      lines = lines.concat(textLines(read.text));
    }
    return { stdout: joinLines(sortedLines(lines, spec, unique)), stderr: "", exitCode: 0 };
  });
}

/** GNU's answer to an option it refuses: the message, exit 2. */
function usageError(message: string): ExecResult {
  return { stdout: "", stderr: `sort: ${message}\n`, exitCode: 2 };
}
