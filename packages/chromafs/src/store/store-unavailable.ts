import { AtriumError, type AtriumErrorOptions, errorMessage } from "@atrium/spec";

/**
 * The store could not be reached (its server is down, restarting, or on the other side of a
 * broken connection). Retryable and not fatal: the caller — an agent, an MCP client — should see
 * it and try again, and nothing may answer as if the store were empty. `store` says which one
 * ("Chroma at http://127.0.0.1:8000, collection docs").
 */
export class StoreUnavailableError extends AtriumError {
  readonly store: string;
  readonly reason: string;
  /** `context` goes before the message: what was being done (`grep: `, `bash: /a.md: `). */
  constructor(store: string, reason: string, options: AtriumErrorOptions & { context?: string } = {}) {
    const { context = "", ...rest } = options;
    super("UNAVAILABLE", `${context}the docs store (${store}) cannot be reached: ${reason}; try again`, {
      isRetryable: true,
      isFatal: false,
      ...rest,
    });
    this.store = store;
    this.reason = reason;
  }
}

export function isStoreUnavailable(error: unknown): error is StoreUnavailableError {
  return error instanceof StoreUnavailableError;
}

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
