/**
 * The messages between `PgSyncClient` (the palace's thread) and `pg-worker.ts` (the thread that
 * talks to PostgreSQL). One request at a time: the palace's thread posts it, then sleeps on
 * `flag` until the worker has posted the reply and set the flag.
 */
export type PgRequest =
  /** A statement with parameters, prepared once per connection under `name`. */
  (
    | { kind: "query"; name: string; sql: string; params: unknown[] }
    /** Statements without parameters (a script, BEGIN, COMMIT), sent as one simple query. */
    | { kind: "exec"; sql: string }
    /** Writes whose results nobody waited for, as one script; the first error stops it. */
    | { kind: "batch"; sql: string }
    | { kind: "close" }
  ) & {
    /**
     * Inside a transaction: the connection it began on (`PgReply.connection`). A worker whose
     * connection is another (or none) refuses instead of running the statement outside it.
     */
    pinned?: string;
  };

export type PgReply = (
  | { ok: true; rows: Record<string, unknown>[]; changes: number; batchChanges?: number[] }
  | { ok: false; error: PgFailure }
) & {
  /** The connection that answered: the worker's instance and its connection count. */
  connection?: string;
};

export interface PgFailure {
  message: string;
  /** PostgreSQL's SQLSTATE (e.g. "23505"), or Node's (e.g. "ECONNREFUSED"). */
  code?: string;
  detail?: string;
  /** The connection is gone (refused, reset, the server shutting down): worth retrying later. */
  connectionLost: boolean;
}

import type { MessagePort } from "node:worker_threads";

export interface PgWorkerData {
  url: string;
  /** An Int32Array's buffer: [0] is set to 1 when a reply is posted. */
  flag: SharedArrayBuffer;
  port: MessagePort;
  connectTimeoutMs: number;
  statementTimeoutMs: number;
  lockTimeoutMs: number;
  /** Which worker this is, for `PgReply.connection`. */
  instance: number;
}
