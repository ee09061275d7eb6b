import { type Command, defineCommand, type ExecResult } from "just-bash";

/**
 * `ls` as just-bash runs it, with GNU's headings for `ls -R DIR/`: just-bash joins the operand
 * and each subdirectory with another slash (`//agent:` for `ls -R /`, `/zh//ai:` for
 * `ls -R /zh/`) where GNU prints `/agent:` and `/zh/ai:`. Only those heading lines change (a
 * heading is the line after an empty line, ending in `:`); entries, order and status are
 * just-bash's.
 */
export function createLsCommand(): Command {
  return defineCommand("ls", async (args, ctx): Promise<ExecResult> => {
    const original = ctx.origCommand;
    if (!original) throw new Error("just-bash did not expose the bundled ls to the override");
    const result = await original(args);
    const slashed = recursiveOperandsEndingInSlash(args);
    if (slashed.length === 0 || result.stdout === "") return result;
    const lines = result.stdout.split("\n");
    for (let i = 1; i < lines.length; i++) {
      const line = lines[i]!;
      if (lines[i - 1] !== "" || !line.endsWith(":")) continue;
      const operand = slashed.find((prefix) => line.startsWith(`${prefix}/`));
      if (operand) lines[i] = operand + line.slice(operand.length + 1);
    }
    return { ...result, stdout: lines.join("\n") };
  });
}

/** The operands of `ls -R` written with a trailing slash; none without -R. */
function recursiveOperandsEndingInSlash(args: readonly string[]): string[] {
  let recursive = false;
  const operands: string[] = [];
  let options = true;
  for (const arg of args) {
    if (options && arg === "--") options = false;
    else if (options && arg === "--recursive") recursive = true;
    else if (options && /^-[^-]/.test(arg)) recursive ||= arg.includes("R");
    else if (!options || !arg.startsWith("--")) operands.push(arg);
  }
  return recursive ? operands.filter((operand) => operand.endsWith("/")) : [];
}
