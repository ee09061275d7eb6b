import { posix } from "node:path";
import { rethrowIfFatal } from "@atrium/spec";
import type { ResolvedCommandContext } from "just-bash";
import { decodeStdin } from "../byte-strings/just-bash-bytes.js";
import { isPosixError } from "../fs/posix-error.js";

/** An operand read as text, or GNU's reason it could not be. */
export type ReadOperand =
  | { ok: true; text: string; isFile: boolean; size: number }
  | { ok: false; reason: "No such file or directory" | "Is a directory" | "Not a directory" };

/**
 * What the coreutils commands here read for one operand: standard input for `-`, a file's text,
 * or the reason GNU gives for what it cannot read (the caller words the message, which differs
 * by command: `wc: X: ...`, `head: cannot open 'X' for reading: ...`).
 */
export async function readOperand(ctx: ResolvedCommandContext, operand: string): Promise<ReadOperand> {
  if (operand === "-") {
    const text = decodeStdin(ctx.stdin);
    return { ok: true, text, isFile: false, size: Buffer.byteLength(text) };
  }
  const path = posix.resolve(ctx.cwd, operand);
  try {
    const info = await ctx.fs.stat(path);
    if (info.isDirectory) return { ok: false, reason: "Is a directory" };
    if (operand.endsWith("/")) return { ok: false, reason: "Not a directory" };
    const text = await ctx.fs.readFile(path);
    return { ok: true, text, isFile: info.isFile, size: info.size };
  } catch (error) {
    rethrowIfFatal(error);
    if (isPosixError(error, "ENOTDIR")) return { ok: false, reason: "Not a directory" };
    return { ok: false, reason: "No such file or directory" };
  }
}

/** The lines of a text as GNU's line tools see them: a last line without newline still counts. */
export function textLines(text: string): string[] {
  if (text === "") return [];
  const lines = text.split("\n");
  if (text.endsWith("\n")) lines.pop();
  return lines;
}

/** Lines joined back, each ending in a newline (what sort and uniq print). */
export function joinLines(lines: readonly string[]): string {
  return lines.length === 0 ? "" : `${lines.join("\n")}\n`;
}
