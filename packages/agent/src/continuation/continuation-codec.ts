import { createHmac, timingSafeEqual } from "node:crypto";
import { AtriumError } from "@atrium/spec";

/** What every continuation starts with: the format and its version. */
const PREFIX = "atrium-run.1.";

/** The longest continuation accepted: its state holds every step's code and tool results. */
export const MAX_CONTINUATION_CHARS = 64 * 1024 * 1024;

/** A continuation that cannot be used: not one, too large, changed, or signed with another key. */
export class ContinuationError extends AtriumError {
  constructor(message: string) {
    super("CONFIG", message, { isFatal: true });
  }
}

/** The state as one line of text: `atrium-run.1.<state, base64url>.<HMAC-SHA256 of the rest, base64url>`. */
export function signContinuation(state: unknown, key: Buffer): string {
  const body = PREFIX + Buffer.from(JSON.stringify(state), "utf8").toString("base64url");
  return `${body}.${mac(body, key)}`;
}

/** The state a continuation carries, once its signature is checked against `key`. */
export function openContinuation(text: string, key: Buffer): unknown {
  if (typeof text !== "string") throw new ContinuationError("a continuation is a string (atrium-run.1.…)");
  const trimmed = text.trim();
  if (trimmed.length > MAX_CONTINUATION_CHARS) {
    throw new ContinuationError(
      `the continuation is ${trimmed.length} characters; the limit is ${MAX_CONTINUATION_CHARS}`,
    );
  }
  if (!trimmed.startsWith(PREFIX)) {
    const version = /^atrium-run\.(\d+)\./.exec(trimmed)?.[1];
    throw new ContinuationError(
      version
        ? `this continuation has format version ${version}; this version of @atrium/agent reads version 1`
        : "this is not an Atrium continuation (it should start with atrium-run.1.)",
    );
  }
  const dot = trimmed.lastIndexOf(".");
  const body = trimmed.slice(0, dot);
  // Compared as text, in its one canonical spelling: base64url decoding forgives stray padding
  // and the unused low bits of the last character, so decoded bytes would accept variants.
  const given = Buffer.from(trimmed.slice(dot + 1), "utf8");
  const expected = Buffer.from(mac(body, key), "utf8");
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
    throw new ContinuationError(
      "the continuation's signature does not match: it was changed after it was saved, or signed with another key",
    );
  }
  try {
    return JSON.parse(Buffer.from(body.slice(PREFIX.length), "base64url").toString("utf8"));
  } catch (error) {
    throw new ContinuationError(`the continuation's state is not JSON: ${(error as Error).message}`);
  }
}

function mac(body: string, key: Buffer): string {
  return createHmac("sha256", key).update(body).digest("base64url");
}
