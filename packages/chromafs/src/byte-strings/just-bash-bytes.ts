import {
  type ByteString,
  bytesOutput,
  type Command,
  type ExecResult,
  latin1FromBytes,
  stdoutKind,
  unsafeBytesFromLatin1,
} from "just-bash";

/**
 * The text/byte boundaries of just-bash, crossed natively. just-bash measures the UTF-8 size of a
 * text result with a loop over its characters at each step it passes, and hands text on to a pipe
 * by building a byte string one character at a time; a byte result's size is its length and a
 * pipe takes it as it is. Its `decodeBytesToUtf8` makes two passes over the characters, and its
 * `encodeUtf8ToBytes` adds the bytes to a string one at a time (a chain of millions of strings
 * for a `cat` of every page: most of that command's time went to garbage collection). On large
 * outputs those loops cost more than the commands themselves, and they run several times slower
 * again once just-bash's defense-in-depth layer has run in the process (see the README's
 * figures). Node's Buffer does the same conversions natively.
 */

/** A result whose text stdout is handed to just-bash as its UTF-8 bytes. */
export function asBytesOutput(result: ExecResult): ExecResult {
  if (result.stdout === "" || stdoutKind(result) === "bytes") return result;
  return {
    ...result,
    ...bytesOutput(encodeText(result.stdout)),
  };
}

/** `command` with its text output handed over as bytes (`asBytesOutput`). */
export function withBytesOutput(command: Command): Command {
  return { ...command, execute: async (args, ctx) => asBytesOutput(await command.execute(args, ctx)) };
}

/** Text as just-bash's byte string (its UTF-8 bytes, one per character): `encodeUtf8ToBytes`, natively. */
export function encodeText(text: string): ByteString {
  return unsafeBytesFromLatin1(Buffer.from(text, "utf8").toString("latin1"));
}

const NOT_A_BYTE = /[^\u0000-\u00ff]/;
const HIGH_BYTE = /[\u0080-\u00ff]/;
const UTF8 = new TextDecoder("utf-8", { fatal: true });

/**
 * Standard input as text: what just-bash's `decodeBytesToUtf8` answers (the UTF-8 decoding of
 * the bytes; the bytes as they are when they are not UTF-8 or not bytes at all), without its
 * character loops.
 */
export function decodeStdin(stdin: ByteString): string {
  const raw = latin1FromBytes(stdin);
  if (NOT_A_BYTE.test(raw) || !HIGH_BYTE.test(raw)) return raw;
  try {
    return UTF8.decode(Buffer.from(raw, "latin1"));
  } catch {
    return raw;
  }
}
