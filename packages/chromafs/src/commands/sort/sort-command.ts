import { type Command, defineCommand, type ExecResult } from "just-bash";
import { defineFlags, sets } from "../../flags/flag-table.js";
import { joinLines, readOperand, textLines } from "../command-input.js";
import { type KeyFlags, parseKey, type SortKey, type SortSpec } from "./sort-keys.js";
import { sortedLines } from "./sorted-lines.js";

interface SortOptions {
  global: KeyFlags;
  keyTexts: string[];
  separator: string | null;
  unique: boolean;
  stable: boolean;
}

/** A global ordering flag (applies to keys that carry none). */
const ordering =
  (flag: keyof KeyFlags) =>
  (o: SortOptions): void => {
    o.global[flag] = true;
  };
const SORT_FLAGS = defineFlags<SortOptions>([
  { short: "n", long: "numeric-sort", apply: ordering("numeric") },
  { short: "f", long: "ignore-case", apply: ordering("fold") },
  { short: "b", long: "ignore-leading-blanks", apply: ordering("blanks") },
  { short: "r", long: "reverse", apply: ordering("reverse") },
  { short: "u", long: "unique", apply: sets({ unique: true }) },
  { short: "s", long: "stable", apply: sets({ stable: true }) },
  { short: "k", long: "key", value: "required", apply: (o, v) => void o.keyTexts.push(v) },
  {
    short: "t",
    long: "field-separator",
    value: "required",
    apply: (o, v) => {
      o.separator = v;
    },
  },
]);

/**
 * GNU `sort` under LC_ALL=C.UTF-8: code point (UTF-8 byte) order, `-n -r -f -b -k -t -u -s`,
 * the last-resort whole-line comparison GNU applies to lines whose keys are equal (not with
 * `-s`/`-u`), `-u` keeping the first line of each equal run. Options it does not model (`-o`,
 * `-c`, `-h`, `-g`, `-V`, `-M`, `-z`...) go to just-bash's sort.
 */
export function createSortCommand(): Command {
  return defineCommand("sort", async (args, ctx): Promise<ExecResult> => {
    const fallback = () =>
      ctx.origCommand
        ? ctx.origCommand(args)
        : Promise.resolve({ stdout: "", stderr: "sort: unsupported option\n", exitCode: 2 });
    const parsed = SORT_FLAGS.parse(args, {
      global: { numeric: false, fold: false, blanks: false, reverse: false },
      keyTexts: [],
      separator: null,
      unique: false,
      stable: false,
    });
    if (!parsed.ok) return fallback();
    const { global, keyTexts, separator, unique, stable } = parsed.options;
    const { operands } = parsed;
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
