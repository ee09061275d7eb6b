import type { Command, CommandContext, ExecResult } from "just-bash";
import { stdoutKind } from "just-bash";

/**
 * `2>&1` in the order things were written. just-bash gives a command's result as two strings and
 * joins them for `2>&1` as all of stdout, then all of stderr, so `cat missing.mdx page.mdx 2>&1`
 * printed the page before the error where GNU prints the error first (coreutils flush stdout
 * before each message). ChromaFs's commands record what they write in order (`WrittenOutput`);
 * the transform in `merged-stderr.ts` marks each command whose stderr goes where its stdout goes
 * with `MERGED_STDERR_VARIABLE`, and for a marked command `withWrittenOrder` hands just-bash the
 * writes joined as stdout and an empty stderr, so the join changes nothing.
 */
export const MERGED_STDERR_VARIABLE = "CHROMAFS_STDERR_TO_STDOUT";

export interface Write {
  stream: "stdout" | "stderr";
  text: string;
}

const WRITES = Symbol("chromafs.writes");

type WithWrites = ExecResult & { [WRITES]?: readonly Write[] };

/** A command's output as it writes it: stdout and stderr apart, and the order of the writes. */
export class WrittenOutput {
  private readonly writes: Write[] = [];

  out(text: string): void {
    this.write("stdout", text);
  }

  err(text: string): void {
    this.write("stderr", text);
  }

  private write(stream: Write["stream"], text: string): void {
    if (text === "") return;
    // Consecutive writes to one stream are one (a line at a time adds up to a page).
    const last = this.writes[this.writes.length - 1];
    if (last?.stream === stream) last.text += text;
    else this.writes.push({ stream, text });
  }

  get stdout(): string {
    return this.joined("stdout");
  }

  get stderr(): string {
    return this.joined("stderr");
  }

  result(exitCode: number): ExecResult {
    return inWrittenOrder({ stdout: this.stdout, stderr: this.stderr, exitCode }, this.writes);
  }

  private joined(stream: Write["stream"]): string {
    let text = "";
    for (const write of this.writes) if (write.stream === stream) text += write.text;
    return text;
  }
}

/** `result` with the order its output was written in (text, as the command wrote it). */
export function inWrittenOrder(result: ExecResult, writes: readonly Write[]): ExecResult {
  return Object.assign({ ...result }, { [WRITES]: writes });
}

/** Whether the command runs with its stderr going where its stdout goes. */
export function stderrMerged(ctx: CommandContext): boolean {
  return ctx.env.get(MERGED_STDERR_VARIABLE) === "1";
}

/** A result's stdout as text, whatever form just-bash's or ChromaFs's command gave it in. */
export function stdoutText(result: ExecResult): string {
  // A byte result's stdout holds one byte per character (latin1).
  return stdoutKind(result) === "bytes"
    ? Buffer.from(result.stdout, "latin1").toString("utf8")
    : result.stdout;
}

/**
 * `command`, whose result is its writes in order as stdout when its stderr is merged (see
 * above). A result without recorded writes (an option left to just-bash's command) is its stdout
 * then its stderr, which is what just-bash's join gives a lone command; inside `{ ...; } 2>&1`
 * that keeps each command's message after its own output rather than after the whole group's.
 */
export function withWrittenOrder(command: Command): Command {
  return {
    ...command,
    execute: async (args, ctx) => {
      const result: WithWrites = await command.execute(args, ctx);
      if (!stderrMerged(ctx)) return result;
      const writes = result[WRITES] ?? [
        { stream: "stdout", text: stdoutText(result) },
        { stream: "stderr", text: result.stderr },
      ];
      const { stdoutKind: _kind, stdoutEncoding: _encoding, ...rest } = result;
      return { ...rest, stdout: writes.map((write) => write.text).join(""), stderr: "" };
    },
  };
}
