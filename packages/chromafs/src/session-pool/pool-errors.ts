import { AtriumError, type SerializedError } from "@atrium/spec";
import { StoreUnavailableError } from "../store/store-unavailable.js";
import type { CommandReply } from "./pool-protocol.js";

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

/** The store outage a worker's command reported, as the same class an in-process session gives. */
export function storeUnavailableFrom(reported: NonNullable<CommandReply["storeUnavailable"]>) {
  // The message may start with what was being done ("grep: "); keep it exactly.
  const at = reported.message.indexOf("the docs store (");
  const context = at > 0 ? reported.message.slice(0, at) : "";
  return new StoreUnavailableError(reported.store, reported.reason, { context });
}
