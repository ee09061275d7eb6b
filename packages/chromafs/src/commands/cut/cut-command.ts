import { type Command, defineCommand, type ExecResult } from "just-bash";
import { defineFlags, sets } from "../../flags/flag-table.js";
import { readOperand, textLines } from "../command-input.js";
import { WrittenOutput } from "../written-order.js";

/** Inclusive 1-based ranges; `to` null for "to the end". */
type Range = { from: number; to: number | null };

export function parseRanges(list: string): Range[] | null {
  const ranges: Range[] = [];
  for (const part of list.split(",")) {
    const match = /^(\d*)(-?)(\d*)$/.exec(part);
    if (!match || (match[1] === "" && match[3] === "") || part === "") return null;
    const from = match[1] === "" ? 1 : Number(match[1]);
    const to = match[2] === "" ? from : match[3] === "" ? null : Number(match[3]);
    if (from === 0 || (to !== null && to < from)) return null;
    ranges.push({ from, to });
  }
  return ranges;
}

const selected = (ranges: readonly Range[], n: number) =>
  ranges.some((r) => n >= r.from && (r.to === null || n <= r.to));

interface CutOptions {
  mode: "fields" | "bytes" | null;
  list: string;
  delimiter: string;
  outputDelimiter: string | null;
  onlyDelimited: boolean;
  complement: boolean;
}

const CUT_FLAGS = defineFlags<CutOptions>([
  {
    short: "f",
    long: "fields",
    value: "required",
    apply: (o, v) => void Object.assign(o, { mode: "fields", list: v }),
  },
  // coreutils 9.1's `-c` is `-b`.
  {
    short: "bc",
    long: ["bytes", "characters"],
    value: "required",
    apply: (o, v) => void Object.assign(o, { mode: "bytes", list: v }),
  },
  {
    short: "d",
    long: "delimiter",
    value: "required",
    apply: (o, v) => {
      o.delimiter = v;
    },
  },
  {
    long: "output-delimiter",
    value: "required",
    apply: (o, v) => {
      o.outputDelimiter = v;
    },
  },
  { short: "s", long: "only-delimited", apply: sets({ onlyDelimited: true }) },
  { long: "complement", apply: sets({ complement: true }) },
]);

/**
 * GNU `cut` (coreutils 9.1): `-f LIST` with `-d DELIM` (tab by default), lines without the
 * delimiter printed whole unless `-s`, `--complement`, `--output-delimiter`; `-b`/`-c LIST`
 * select bytes (9.1's `-c` is `-b`). Other options go to just-bash's cut.
 */
export function createCutCommand(): Command {
  return defineCommand("cut", async (args, ctx): Promise<ExecResult> => {
    const fallback = () =>
      ctx.origCommand
        ? ctx.origCommand(args)
        : Promise.resolve({ stdout: "", stderr: "cut: unsupported option\n", exitCode: 1 });
    const parsed = CUT_FLAGS.parse(args, {
      mode: null,
      list: "",
      delimiter: "\t",
      outputDelimiter: null,
      onlyDelimited: false,
      complement: false,
    });
    if (!parsed.ok) return fallback();
    const { mode, list, delimiter, outputDelimiter, onlyDelimited, complement } = parsed.options;
    const { operands } = parsed;
    const ranges = parseRanges(list);
    if (mode === null || ranges === null || [...delimiter].length !== 1) return fallback();
    const keep = (n: number) => selected(ranges, n) !== complement;
    const output = new WrittenOutput();
    let failed = false;
    for (const operand of operands.length === 0 ? ["-"] : operands) {
      const read = await readOperand(ctx, operand);
      if (!read.ok) {
        output.err(`cut: ${operand}: ${read.reason}\n`);
        failed = true;
        continue;
      }
      for (const line of textLines(read.text)) {
        if (mode === "bytes") {
          const bytes = Buffer.from(line);
          const kept: number[] = [];
          for (let i = 0; i < bytes.length; i++) if (keep(i + 1)) kept.push(bytes[i]!);
          output.out(`${Buffer.from(kept).toString("utf8")}\n`);
          continue;
        }
        const fields = line.split(delimiter);
        if (fields.length === 1) {
          if (!onlyDelimited) output.out(`${line}\n`);
          continue;
        }
        output.out(`${fields.filter((_, i) => keep(i + 1)).join(outputDelimiter ?? delimiter)}\n`);
      }
    }
    return output.result(failed ? 1 : 0);
  });
}
