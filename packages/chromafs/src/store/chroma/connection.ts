import { errorMessage } from "@atrium/spec";

/** Node's connection failures, as fetch reports them in `cause.code`. */
const CONNECTION_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "EPIPE",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "UND_ERR_SOCKET",
  "UND_ERR_CLOSED",
  "UND_ERR_CONNECT_TIMEOUT",
]);

/**
 * Why a request to a Chroma server failed, when it failed because nothing answered; undefined
 * for every other failure (a bad filter, a missing collection). chromadb turns a failed fetch
 * into `ChromaConnectionError` and drops the cause, so that class is recognised by name; a
 * bare fetch failure (undici's `TypeError: fetch failed`) by its cause's code.
 */
export function unreachableReason(error: unknown): string | undefined {
  if (!(error instanceof Error)) return undefined;
  if (error.name === "ChromaConnectionError") return "no Chroma server answers there";
  const cause = (error as { cause?: { code?: unknown; message?: unknown } }).cause;
  const code = typeof cause?.code === "string" ? cause.code : undefined;
  if (code && CONNECTION_CODES.has(code)) return `${code} (${errorMessage(cause)})`;
  if (error.name === "TypeError" && /fetch failed/i.test(error.message)) return "the connection failed";
  return undefined;
}
