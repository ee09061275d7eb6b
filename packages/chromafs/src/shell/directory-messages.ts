import { posix } from "node:path";
import { type Command, defineCommand, type ExecResult, type IFileSystem } from "just-bash";
import { stderrMerged, stdoutText, WrittenOutput } from "../commands/written-order.js";

/** GNU's message when a command is asked to read a directory as a file. */
const GNU_MESSAGE: Record<string, (operand: string) => string> = {
  cat: (operand) => `cat: ${operand}: Is a directory`,
};

/**
 * `cat` as just-bash runs it (ChromaFs's own `head` and `tail` word this themselves), except for one message: just-bash says
 * "No such file or directory" for a directory operand, which tells an agent the path does not
 * exist when it is a directory to `ls`. The line is replaced by GNU's "Is a directory"; output
 * and exit status are just-bash's (and already GNU's). Under `2>&1` with no options, each
 * operand is a run of its own, so a message lands between the files it came
 * between (`written-order.ts`).
 */
export function createDirectoryMessageCommands(): Command[] {
  return Object.entries(GNU_MESSAGE).map(([name, message]) =>
    defineCommand(name, async (args, ctx): Promise<ExecResult> => {
      const original = ctx.origCommand;
      if (!original) throw new Error(`just-bash did not expose the bundled ${name} to the override`);
      const fix = async (result: ExecResult): Promise<ExecResult> => {
        if (!result.stderr.includes(": No such file or directory")) return result;
        const lines = result.stderr.split(/(?<=\n)/);
        const fixed = await Promise.all(lines.map((line) => rewrite(line, name, message, ctx.cwd, ctx.fs)));
        return { ...result, stderr: fixed.join("") };
      };
      const plainOperands = args.length > 0 && args.every((arg) => arg === "-" || !arg.startsWith("-"));
      if (!stderrMerged(ctx) || !plainOperands) return fix(await original(args));
      const output = new WrittenOutput();
      let exitCode = 0;
      for (const operand of args) {
        const result = await fix(await original([operand]));
        output.out(stdoutText(result));
        output.err(result.stderr);
        exitCode = Math.max(exitCode, result.exitCode);
      }
      return output.result(exitCode);
    }),
  );
}

async function rewrite(
  line: string,
  name: string,
  message: (operand: string) => string,
  cwd: string,
  fs: IFileSystem,
): Promise<string> {
  const prefix = `${name}: `;
  const suffix = ": No such file or directory\n";
  if (!line.startsWith(prefix) || !line.endsWith(suffix)) return line;
  const operand = line.slice(prefix.length, -suffix.length);
  try {
    const info = await fs.stat(posix.resolve(cwd, operand));
    return info.isDirectory ? `${message(operand)}\n` : line;
  } catch {
    return line;
  }
}
