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
