import { type Command, defineCommand, type ExecResult, latin1FromBytes, stdoutKind } from "just-bash";
import { encodeText } from "../../byte-strings/just-bash-bytes.js";
import { defineFlags } from "../../flags/flag-table.js";

interface NumberFormat {
  width: number;
  separator: string;
}

/** GNU nl's options that take a value, by letter and long name (only `-w` and `-s` matter here). */
const VALUED: Record<string, string> = {
  b: "body-numbering",
  h: "header-numbering",
  f: "footer-numbering",
  i: "line-increment",
  l: "join-blank-lines",
  n: "number-format",
  s: "number-separator",
  v: "starting-line-number",
  w: "number-width",
  d: "section-delimiter",
};

const NL_FLAGS = defineFlags<NumberFormat>(
  [
    ...Object.entries(VALUED).map(([short, long]) => ({
      short,
      long,
      value: "required" as const,
      apply: (format: NumberFormat, value: string) => {
        if (short === "w") format.width = Number.parseInt(value, 10) || format.width;
        if (short === "s") format.separator = value;
      },
    })),
    { short: "p", long: "no-renumber", apply: () => {} },
  ],
  // Only the format is read here: just-bash's nl answers for the rest.
  { unknown: "keep" },
);

/** `-w` and `-s` as GNU nl reads them from `args` (defaults 6 and a tab). */
export function numberFormat(args: readonly string[]): NumberFormat {
  const parsed = NL_FLAGS.parse(args, { width: 6, separator: "\t" });
  return parsed.ok ? parsed.options : { width: 6, separator: "\t" };
}

/**
 * `nl` as just-bash runs it, with GNU's spelling of a line it does not number: GNU prints the
 * number's width plus the separator's length in spaces (`nl` of a blank line is 7 spaces), where
 * just-bash prints the width in spaces and then the separator itself. A numbered line starts
 * with its number, so only the unnumbered lines start with `width` spaces and the separator.
 */
export function createNlCommand(): Command {
  return defineCommand("nl", async (args, ctx): Promise<ExecResult> => {
    const original = ctx.origCommand;
    if (!original) throw new Error("just-bash did not expose the bundled nl to the override");
    const result = await original(args);
    const { width, separator } = numberFormat(args);
    const bytes = stdoutKind(result) === "bytes";
    const shownSeparator = bytes ? latin1FromBytes(encodeText(separator)) : separator;
    const unnumbered = " ".repeat(width) + shownSeparator;
    const blank = " ".repeat(width + Buffer.byteLength(separator));
    const lines = result.stdout.split(/(?<=\n)/);
    const fixed = lines.map((line) =>
      line.startsWith(unnumbered) ? blank + line.slice(unnumbered.length) : line,
    );
    return { ...result, stdout: fixed.join("") };
  });
}
