import { createHash } from "node:crypto";
import { MessageChannel, type MessagePort, receiveMessageOnPort, type Worker } from "node:worker_threads";
import { startWorkerThread } from "@atrium/kit";
import { PalaceError } from "../../errors.js";
import type { PgFailure, PgReply, PgRequest, PgWorkerData } from "./pg-protocol.js";

export interface PgSyncClientOptions {
  /** How long connecting may take (default 5 s). */
  connectTimeoutMs?: number;
  /** PostgreSQL's `statement_timeout` (default 30 s). */
  statementTimeoutMs?: number;
  /** How long a writer waits for another's lock (PostgreSQL's `lock_timeout`). */
  lockTimeoutMs?: number;
}

/** A PostgreSQL error, with its SQLSTATE in `code` as better-sqlite3 gives SQLite's. */
export class PgQueryError extends Error {
  constructor(
    readonly failure: PgFailure,
    sql: string,
  ) {
    super(`${failure.message}${failure.detail ? ` (${failure.detail})` : ""} [in: ${sql.slice(0, 200)}]`);
    this.name = "PgQueryError";
  }
  get code(): string | undefined {
    return this.failure.code;
  }
}

/**
 * Synchronous calls to PostgreSQL: a worker thread holds the connection (the `pg` client), and
 * this thread waits on a shared flag for each reply. The palace's storage code is synchronous
 * (better-sqlite3's model: short transactions, no await inside), and this keeps it that way on
 * PostgreSQL, at the cost of blocking this thread for each round trip (about 0.1 ms on loopback).
 *
 * A reply that does not come within the statement timeout and a margin ends the worker; the
 * next call starts another. A lost connection is a `PalaceError` "palace/unavailable" (retryable);
 * the worker connects again on the next call.
 */
export class PgSyncClient {
  readonly #url: string;
  readonly #options: Required<PgSyncClientOptions>;
  #worker: Worker | undefined;
  #port: MessagePort | undefined;
  #flag: Int32Array | undefined;
  readonly #names = new Map<string, string>();
  /** Numbers each request; its reply carries the number back. */
  #seq = 0;
  /** Workers started so far, so a new worker's connections are never taken for an old one's. */
  #instances = 0;
  #connection: string | undefined;

  constructor(url: string, options: PgSyncClientOptions = {}) {
    this.#url = url;
    this.#options = {
      connectTimeoutMs: options.connectTimeoutMs ?? 5_000,
      statementTimeoutMs: options.statementTimeoutMs ?? 30_000,
      lockTimeoutMs: options.lockTimeoutMs ?? 5_000,
    };
  }

  /** The URL without its password, for messages. */
  get location(): string {
    return redactUrl(this.#url);
  }

  /** The connection that answered last (see `PgRequest.pinned`). */
  get connection(): string | undefined {
    return this.#connection;
  }

  query(
    sql: string,
    params: unknown[],
    pinned?: string,
  ): { rows: Record<string, unknown>[]; changes: number } {
    return this.#call({ kind: "query", name: this.#name(sql), sql, params, pinned }, sql);
  }

  /** Runs statements (values written in) as one script, one round trip; each one's count of changed rows. */
  batch(statements: readonly string[], pinned?: string): number[] {
    const sql = statements.join(";\n");
    const reply = this.#call({ kind: "batch", sql, pinned }, sql);
    return reply.batchChanges ?? [];
  }

  #name(sql: string): string {
    let name = this.#names.get(sql);
    if (name === undefined) {
      name = `atrium_${createHash("sha1").update(sql).digest("hex").slice(0, 20)}`;
      this.#names.set(sql, name);
    }
    return name;
  }

  exec(sql: string, pinned?: string): void {
    this.#call({ kind: "exec", sql, pinned }, sql);
  }

  close(): void {
    if (!this.#worker) return;
    try {
      this.#call({ kind: "close" }, "close");
    } finally {
      this.#stop();
    }
  }

  #call(
    request: PgRequest,
    sql: string,
  ): { rows: Record<string, unknown>[]; changes: number; batchChanges?: number[] } {
    const { port, flag } = this.#started();
    const seq = ++this.#seq;
    port.postMessage({ ...request, seq });
    const message = this.#reply(port, flag, seq);
    this.#connection = message.connection;
    if (message.ok) return message;
    if (message.error.connectionLost) {
      throw new PalaceError(
        "palace/unavailable",
        `PostgreSQL at ${this.location} is not reachable (${message.error.message}); a write either committed whole or not at all: retry it (filing a drawer again is safe, its id comes from its content)`,
        { cause: new PgQueryError(message.error, sql) },
      );
    }
    if (message.error.code === "22021" && message.error.message.includes("0x00")) {
      throw nulRefused(new PgQueryError(message.error, sql));
    }
    throw new PgQueryError(message.error, sql);
  }

  /**
   * Waits for the reply to request `seq`. The flag only says "look again": a wake may be late (the
   * notify of an earlier reply) or early, so the port is read until the reply carrying `seq`
   * comes, and an earlier reply still queued (its caller gave up) is dropped.
   */
  #reply(port: MessagePort, flag: Int32Array, seq: number): PgReply {
    const limit = this.#options.connectTimeoutMs + this.#options.statementTimeoutMs + 5_000;
    const deadline = performance.now() + limit;
    for (;;) {
      const message = receiveMessageOnPort(port)?.message as (PgReply & { seq: number }) | undefined;
      if (message?.seq === seq) return message;
      if (message) continue;
      const remaining = deadline - performance.now();
      if (remaining <= 0 || Atomics.wait(flag, 0, 0, remaining) === "timed-out") {
        this.#stop();
        throw new PalaceError(
          "palace/unavailable",
          `PostgreSQL at ${this.location} did not answer within ${limit} ms; retry the call (its transaction was ended, so a write either committed whole or not at all)`,
        );
      }
      Atomics.store(flag, 0, 0);
    }
  }

  #started(): { port: MessagePort; flag: Int32Array } {
    if (this.#worker && this.#port && this.#flag) return { port: this.#port, flag: this.#flag };
    const { port1, port2 } = new MessageChannel();
    const flag = new Int32Array(new SharedArrayBuffer(4));
    const workerData: PgWorkerData = {
      instance: ++this.#instances,
      url: this.#url,
      flag: flag.buffer as SharedArrayBuffer,
      port: port2,
      ...this.#options,
    };
    const worker = startWorkerThread(
      {
        from: import.meta.url,
        source: "./pg-worker.ts",
        // Bundled into dist/index.js and dist/cli/main.js alike.
        built: ["./pg-worker.js", "../pg-worker.js"],
        owner: "The PostgreSQL palace store",
      },
      { workerData, transferList: [port2 as never] },
    );
    // The connection is this thread's to close; it must not keep the process alive by itself.
    worker.unref();
    port1.unref();
    this.#worker = worker;
    this.#port = port1;
    this.#flag = flag;
    return { port: port1, flag };
  }

  #stop(): void {
    this.#worker?.terminate().catch(() => {});
    this.#port?.close();
    this.#worker = undefined;
    this.#port = undefined;
    this.#flag = undefined;
  }
}

/** `postgres://user:secret@host/db` as `postgres://user@host/db`. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    parsed.password = "";
    return parsed.toString();
  } catch {
    return "(an unparsable PostgreSQL URL)";
  }
}

/** Text holding U+0000, refused by name: PostgreSQL's text type cannot hold it. */
export function nulRefused(cause: Error): PalaceError {
  return new PalaceError(
    "palace/invalid-input",
    "PostgreSQL cannot keep the NUL character (U+0000) in text; remove it from the drawer (a SQLite palace keeps it)",
    { cause },
  );
}
