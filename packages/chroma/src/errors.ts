import { AtriumError, type AtriumErrorOptions } from "@atrium/spec";

/**
 * The embedded Chroma server could not start (binary missing or incompatible, port taken,
 * data dir unusable, no heartbeat in time). Fatal: nothing that needs the store can go on.
 */
export class ChromaStartError extends AtriumError {
  readonly dataDir: string;
  constructor(dataDir: string, message: string, options: AtriumErrorOptions = {}) {
    super("UNAVAILABLE", message, { isFatal: true, ...options });
    this.dataDir = dataDir;
  }
}

/** No Chroma server answers at `url`. Retryable: the server may be starting. */
export class ChromaUnreachableError extends AtriumError {
  readonly url: string;
  constructor(url: string, message: string, options: AtriumErrorOptions = {}) {
    super("UNAVAILABLE", message, { isFatal: true, isRetryable: true, ...options });
    this.url = url;
  }
}

/**
 * The server refused a query's filter (`where` or `where_document`): a `$regex` its Rust regex
 * engine cannot parse (back-references, look-around, an unclosed group) or a malformed clause.
 * Not retryable: the same filter is refused again. Callers that only narrow with the filter can
 * fall back to not narrowing.
 */
export class ChromaFilterRejectedError extends AtriumError {
  /** What the server said, without the request URL. */
  readonly reason: string;
  constructor(reason: string, options: AtriumErrorOptions = {}) {
    super("VALIDATION", `Chroma rejected the query filter: ${reason}`, options);
    this.reason = reason;
  }
}

/** chromadb 3.5 answers every HTTP 400 with a `ChromaClientError` whose message ends in the server's. */
const BAD_REQUEST = /^Bad request to .* with status: ([\s\S]*)$/;
/** The server's messages for filters it cannot evaluate (server 1.0.0). */
const FILTER_PROBLEM = /regex|where|invalid (?:operator|filter)|operand/i;

/**
 * The `ChromaFilterRejectedError` an error from a chromadb call stands for, or undefined when it
 * is anything else (unreachable server, missing collection, a bad request unrelated to filters).
 * The one place that reads chromadb's error text, so a client upgrade that rewords it is fixed here.
 */
export function asFilterRejected(error: unknown): ChromaFilterRejectedError | undefined {
  if (error instanceof ChromaFilterRejectedError) return error;
  if (!(error instanceof Error) || error.name !== "ChromaClientError") return undefined;
  const reason = BAD_REQUEST.exec(error.message)?.[1];
  if (reason === undefined || !FILTER_PROBLEM.test(reason)) return undefined;
  return new ChromaFilterRejectedError(reason, { cause: error });
}
