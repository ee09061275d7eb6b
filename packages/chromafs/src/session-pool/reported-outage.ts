import { StoreUnavailableError } from "../errors.js";
import type { CommandReply } from "./pool-protocol.js";

/** The store outage a worker's command reported, as the same class an in-process session gives. */
export function storeUnavailableFrom(reported: NonNullable<CommandReply["storeUnavailable"]>) {
  // The message may start with what was being done ("grep: "); keep it exactly.
  const at = reported.message.indexOf("the docs store (");
  const context = at > 0 ? reported.message.slice(0, at) : "";
  return new StoreUnavailableError(reported.store, reported.reason, { context });
}
