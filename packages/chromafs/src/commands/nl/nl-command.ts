import { type Command, defineCommand, type ExecResult, latin1FromBytes, stdoutKind } from "just-bash";
import { encodeText } from "../../byte-strings/just-bash-bytes.js";

/** nl's short options that take a value (`-bt`, `-b t`), so a cluster's value is not read as flags. */
const VALUED = new Set(["b", "h", "f", "i", "l", "n", "s", "v", "w", "d"]);

interface NumberFormat {
  width: number;
  separator: string;
}

/** `-w` and `-s` as GNU nl reads them from `args` (defaults 6 and a tab). */
export function numberFormat(args: readonly string[]): NumberFormat {
  const format: NumberFormat = { width: 6, separator: "\t" };
  const set = (option: string, value: string | undefined) => {
    if (value === undefined) return;
    if (option === "w") format.width = Number.parseInt(value, 10) || format.width;
    if (option === "s") format.separator = value;
  };
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === "--") break;
    const long = /^--number-(width|separator)(?:=(.*))?$/s.exec(arg);
    if (long) {
      const option = long[1] === "width" ? "w" : "s";
      set(option, long[2] ?? args[++i]);
    } else if (/^-[^-]/.test(arg)) {
      for (let at = 1; at < arg.length; at++) {
        const option = arg[at]!;
        if (!VALUED.has(option)) continue;
        set(option, at + 1 < arg.length ? arg.slice(at + 1) : args[++i]);
        break;
      }
    }
  }
  return format;
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
