import { type Command, defineCommand, type ExecResult } from "just-bash";
import { defineFlags, sets } from "../../flags/flag-table.js";
import { readOperand } from "../command-input.js";
import { inWrittenOrder } from "../written-order.js";
import { runSed, type SedLine } from "./sed-run.js";
import { parseSedScript } from "./sed-script.js";

interface SedOptions {
  quiet: boolean;
  extended: boolean;
  scripts: string[];
  operands: string[];
}

const SED_FLAGS = defineFlags<SedOptions>([
  { short: "n", long: ["quiet", "silent"], apply: sets({ quiet: true }) },
  { short: "Er", long: "regexp-extended", apply: sets({ extended: true }) },
  // Unbuffered: nothing to do here.
  { short: "u", apply: () => {} },
  { short: "e", long: "expression", value: "required", apply: (o, v) => void o.scripts.push(v) },
]);

/** GNU sed's options this command models; null for any other (`-i`, `-s`, `-z`, `-f`, ...). */
export function parseSedOptions(args: readonly string[]): SedOptions | null {
  const parsed = SED_FLAGS.parse(args, { quiet: false, extended: false, scripts: [], operands: [] });
  if (!parsed.ok) return null;
  const { options, operands } = parsed;
  if (options.scripts.length === 0) {
    const script = operands.shift();
    if (script === undefined) return null;
    options.scripts.push(script);
  }
  options.operands = operands;
  return options;
}

/** The input lines, each remembering whether a newline ended it. */
function splitLines(text: string, into: SedLine[]): void {
  if (text === "") return;
  const parts = text.split("\n");
  const last = parts.pop()!;
  for (const part of parts) into.push({ text: part, newline: true });
  if (last !== "") into.push({ text: last, newline: false });
}

/**
 * GNU sed for the scripts agents write to pull lines out of pages (`sed -n '/^## A/,/^## /p'`,
 * `s///`, `5,10p`, `$p`, `0,/re/`, `/re/,+3p`, blocks, `!`, `=`, `q`, `y`, `n`/`N`, the hold
 * space, `a i c`, labels and branches), with GNU's range
 * semantics: just-bash 3.4.2 closes a range on its start line when the end regex also matches
 * there, so `/^## /,/^## /p` printed one heading instead of a section. A script or an option
 * this does not model (see `sed-script.ts`) goes to just-bash's sed, as before.
 */
export function createSedCommand(): Command {
  return defineCommand("sed", async (args, ctx): Promise<ExecResult> => {
    const fallback = () => {
      if (!ctx.origCommand) throw new Error("just-bash did not expose the bundled sed to the override");
      return ctx.origCommand(args);
    };
    const options = parseSedOptions(args);
    if (!options) return fallback();
    let script = options.scripts.join("\n");
    let quiet = options.quiet;
    // GNU: a script whose first line is exactly `#n` acts as -n.
    if (script === "#n" || script.startsWith("#n\n")) {
      quiet = true;
      script = script.slice(2);
    }
    const commands = parseSedScript(script, options.extended);
    if (!commands) return fallback();
    const lines: SedLine[] = [];
    let stderr = "";
    let failure = 0;
    for (const operand of options.operands.length === 0 ? ["-"] : options.operands) {
      const read = await readOperand(ctx, operand);
      if (read.ok) splitLines(read.text, lines);
      else if (read.reason === "Is a directory") {
        // GNU stops at a directory (exit 4) after running the script over what it read before.
        stderr += `sed: read error on ${operand}: Is a directory\n`;
        failure = 4;
        break;
      } else {
        stderr += `sed: can't read ${operand}: ${read.reason}\n`;
        failure = 2;
      }
    }
    const result = runSed(commands, lines, quiet);
    // GNU sed buffers its output and not its messages: under `2>&1` the messages come first
    // (until the output passes stdio's 4 KiB buffer, which this does not model).
    return inWrittenOrder({ stdout: result.stdout, stderr, exitCode: result.exitCode ?? failure }, [
      { stream: "stderr", text: stderr },
      { stream: "stdout", text: result.stdout },
    ]);
  });
}
