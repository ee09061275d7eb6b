import { type Command, defineCommand, type ExecResult } from "just-bash";
import { defineFlags } from "../../flags/flag-table.js";
import { readOperand } from "../command-input.js";
import { WrittenOutput } from "../written-order.js";
import { longestLineWidth } from "./line-width.js";

interface Counts {
  lines: number;
  words: number;
  chars: number;
  bytes: number;
  /** `-L`: the widest line's display width (a maximum, also in the `total` line). */
  longest: number;
}

const COLUMNS = ["lines", "words", "chars", "bytes", "longest"] as const;
type Column = (typeof COLUMNS)[number];

const column =
  (name: Column) =>
  (shown: Set<Column>): void => {
    shown.add(name);
  };
const WC_FLAGS = defineFlags<Set<Column>>([
  { short: "l", long: "lines", apply: column("lines") },
  { short: "w", long: "words", apply: column("words") },
  { short: "m", long: "chars", apply: column("chars") },
  { short: "c", long: "bytes", apply: column("bytes") },
  { short: "L", long: "max-line-length", apply: column("longest") },
]);

/** Whether the code unit is one of glibc's UTF-8 spaces (`iswspace`). */
function isSpace(code: number): boolean {
  if (code < 0x80) return code === 0x20 || (code >= 0x09 && code <= 0x0d);
  return (
    code === 0x1680 ||
    (code >= 0x2000 && code <= 0x2006) ||
    (code >= 0x2008 && code <= 0x200a) ||
    code === 0x2028 ||
    code === 0x2029 ||
    code === 0x205f ||
    code === 0x3000
  );
}

const LOW_SURROGATES = /[\uDC00-\uDFFF]/g;

/**
 * GNU's counts of a text. Lines, characters and bytes are counted with native string functions;
 * only words (when asked for) need a loop over the characters, which in a process where
 * just-bash's defense-in-depth has run is several times slower than it would be.
 */
export function countText(text: string, words = true, longest = false): Counts {
  let lines = 0;
  for (let at = text.indexOf("\n"); at !== -1; at = text.indexOf("\n", at + 1)) lines++;
  // A low surrogate ends a character its high surrogate already counted.
  const chars = text.length - (text.match(LOW_SURROGATES)?.length ?? 0);
  return {
    lines,
    words: words ? countWords(text) : 0,
    chars,
    bytes: Buffer.byteLength(text),
    longest: longest ? longestLineWidth(text) : 0,
  };
}

function countWords(text: string): number {
  let words = 0;
  let inWord = false;
  for (let i = 0; i < text.length; i++) {
    if (isSpace(text.charCodeAt(i))) inWord = false;
    else if (!inWord) {
      inWord = true;
      words++;
    }
  }
  return words;
}

/**
 * GNU `wc` (coreutils 9.1): counts in the order lines, words, chars, bytes, longest line, each right-aligned
 * to one width — 1 for a single count of a single operand, else the digits of the operands'
 * total size, at least 7 when one is not a regular file (standard input, a directory) — a
 * `total` line for several operands, and `wc: X: ...` for what it cannot read (status 1).
 * Options it does not model (`--files0-from`, `--total`) go to just-bash's wc.
 */
export function createWcCommand(): Command {
  return defineCommand("wc", async (args, ctx): Promise<ExecResult> => {
    const parsed = WC_FLAGS.parse(args, new Set());
    if (!parsed.ok) return ctx.origCommand ? ctx.origCommand(args) : unsupported(parsed.unsupported);
    const { options: shown, operands } = parsed;
    const columns =
      shown.size === 0 ? (["lines", "words", "bytes"] as const) : COLUMNS.filter((c) => shown.has(c));
    const inputs = operands.length === 0 ? ["-"] : operands;
    // One entry per operand, in order: its message (if any) and its row (unless it is missing).
    const rows: {
      counts: Counts | null;
      name: string | null;
      regular: boolean;
      size: number;
      error?: string;
      shown: boolean;
    }[] = [];
    for (const operand of inputs) {
      const read = await readOperand(ctx, operand);
      const name = operands.length === 0 ? null : operand;
      if (read.ok) {
        const wanted = columns as readonly string[];
        const counts = countText(read.text, wanted.includes("words"), wanted.includes("longest"));
        rows.push({ counts, name, regular: read.isFile, size: read.size, shown: true });
      } else {
        const error = `wc: ${operand}: ${read.reason}\n`;
        const shown = read.reason === "Is a directory";
        rows.push({ counts: null, name, regular: false, size: 0, error, shown });
      }
    }
    let width = 1;
    if (!(columns.length === 1 && inputs.length === 1)) {
      const total = rows.reduce((sum, row) => sum + (row.regular ? row.size : 0), 0);
      width = Math.max(String(total).length, rows.some((row) => row.shown && !row.regular) ? 7 : 1);
    }
    const zero: Counts = { lines: 0, words: 0, chars: 0, bytes: 0, longest: 0 };
    const line = (counts: Counts, name: string | null) =>
      columns.map((column) => String(counts[column]).padStart(width)).join(" ") +
      (name === null ? "" : ` ${name}`);
    const output = new WrittenOutput();
    for (const row of rows) {
      if (row.error) output.err(row.error);
      if (row.shown) output.out(`${line(row.counts ?? zero, row.name)}\n`);
    }
    if (inputs.length > 1) {
      const total = { ...zero };
      for (const row of rows) {
        for (const column of COLUMNS) {
          const count = row.counts?.[column] ?? 0;
          total[column] = column === "longest" ? Math.max(total[column], count) : total[column] + count;
        }
      }
      output.out(`${line(total, "total")}\n`);
    }
    return output.result(rows.some((row) => row.error) ? 1 : 0);
  });
}

function unsupported(arg: string): ExecResult {
  return { stdout: "", stderr: `wc: invalid option -- '${arg}'\n`, exitCode: 1 };
}
