import { AtriumError, type AtriumErrorOptions, type SerializedError } from "@atrium/spec";

/**
 * Every error class of @atrium/chromafs, in one module (docs/NAMING.md). Each extends
 * `AtriumError`, so callers tell them apart by class and by `code`, `isRetryable`, `isFatal`.
 * (`PosixError` in `fs/posix-error.ts` is no Atrium error: it is the `ENOENT: ...` shape
 * just-bash's commands expect from a filesystem, turned into their own GNU-style messages.)
 */

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

/** The store answered something inconsistent (chunks missing for a page the tree lists). */
export class DocStoreError extends AtriumError {
  constructor(message: string) {
    super("UNAVAILABLE", message, { isFatal: true });
  }
}

/** Ingest can't go on: bad arguments, an unreadable page, an invalid groups file, a conflicting collection. */
export class IngestError extends AtriumError {
  constructor(message: string, options: AtriumErrorOptions = {}) {
    super("CONFIG", message, options);
  }
}

/**
 * The tree document is missing, unreadable or not a valid tree. Fatal and never papered over:
 * an empty filesystem would tell an agent the docs say nothing, which is worse than an error.
 */
export class PathTreeError extends AtriumError {
  readonly collection: string;
  constructor(collection: string, message: string, options: { cause?: unknown; missing?: boolean } = {}) {
    super(options.missing ? "NOT_FOUND" : "PARSE", message, { cause: options.cause, isFatal: true });
    this.collection = collection;
  }
}

/**
 * The collection was written by a newer @atrium/chromafs than this one. Reading it anyway could
 * misread what changed (access rules included), so it is refused until the package is upgraded
 * or the collection is rebuilt by this version.
 */
export class StorageFormatError extends AtriumError {
  readonly collection: string;
  /** The format version found in the collection. */
  readonly found: number;
  /** The newest format this package reads (`STORAGE_FORMAT_VERSION`). */
  readonly supported: number;

  constructor(collection: string, found: number, supported: number) {
    super(
      "CONFIG",
      `Collection ${collection} was written by a newer @atrium/chromafs (format ${found}, this reads up to ${supported}): ` +
        `upgrade the package or re-ingest with this version (atrium-docs ingest <dir> --collection ${collection} --rebuild)`,
    );
    this.collection = collection;
    this.found = found;
    this.supported = supported;
  }
}

/**
 * A stored grep index can't be used (unreadable, inconsistent, another format). Never fatal:
 * the store then narrows grep with server queries, as for a collection ingested without one.
 */
export class GrepIndexError extends AtriumError {
  constructor(message: string, cause?: unknown) {
    super("PARSE", message, { cause });
  }
}

/**
 * The worker thread running a session's commands stopped (it crashed or ran out of memory).
 * Commands it was running or had waiting fail with this; the pool starts a new worker, and the
 * session's next command runs there in a fresh session: same groups and directory, empty /tmp.
 */
export class SessionWorkerLostError extends AtriumError {
  constructor(reason: string, options: { cause?: unknown } = {}) {
    super(
      "UNAVAILABLE",
      `the worker thread running this docs session stopped (${reason}); its /tmp files are lost. Run the command again: it runs in a new worker`,
      { isRetryable: true, isFatal: false, ...options },
    );
  }
}

/** An error thrown in a worker thread, rebuilt on the host with its name, code and flags. */
export class WorkerThreadError extends AtriumError {
  constructor(serialized: SerializedError) {
    super(serialized.code === "UNKNOWN" ? "EXECUTION" : serialized.code, serialized.message, {
      isRetryable: serialized.isRetryable,
      isFatal: serialized.isFatal,
    });
    this.name = serialized.name;
  }
}
