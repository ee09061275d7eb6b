import type { SqlDatabase, SqlRunResult, SqlStatement, SqlTransaction } from "../sql/sql-database.js";
import { POSTGRES_DIALECT } from "../sql/sql-dialect.js";
import {
  inlineSql,
  NulInTextError,
  type PgPlaceholders,
  pgValues,
  toPgPlaceholders,
} from "./pg-placeholders.js";
import { nulRefused, PgQueryError, PgSyncClient, type PgSyncClientOptions } from "./pg-sync-client.js";

/**
 * The key of the palace's writer lock (`pg_advisory_xact_lock`): a transaction that writes takes
 * it first, so writers from every server run one at a time, as SQLite's `BEGIN IMMEDIATE` makes
 * them, and the palace's read-then-write transactions stay correct across servers. Readers never
 * take it. One palace per database.
 */
export const PALACE_WRITER_LOCK = 0x61747269; // "atri"

/** A write held back until something needs the server (see `PgDatabase.deferred`). */
interface DeferredWrite {
  /** The statement with its values written in (`inlineSql`). */
  sql: string;
  result: { changes: number | undefined };
}

/** Held-back writes are sent before this many pile up, or this much SQL (a rebuild writes every row). */
const MAX_DEFERRED_WRITES = 1_000;
const MAX_DEFERRED_CHARS = 4_000_000;

/**
 * The palace's storage seam over a PostgreSQL database (see `SqlDatabase`), through a
 * `PgSyncClient`. Transactions nest as savepoints.
 *
 * Inside a transaction, a `run` is not sent at once: writes wait and go together, in order, in
 * one round trip before the next read, COMMIT or savepoint (filing a drawer is about six writes
 * and few reads). An error in one of them fails that later call instead, still inside the same
 * transaction, which then rolls back whole; a caller that reads `changes` waits for it.
 */
export class PgDatabase implements SqlDatabase {
  readonly dialect = POSTGRES_DIALECT;
  readonly #client: PgSyncClient;
  #depth = 0;
  #open = true;
  readonly #deferred: DeferredWrite[] = [];
  #deferredChars = 0;
  /** The connection the open transaction began on (`PgRequest.pinned`). */
  #pinned: string | undefined;

  constructor(url: string, options: PgSyncClientOptions = {}) {
    this.#client = new PgSyncClient(url, options);
  }

  get location(): string {
    return this.#client.location;
  }

  get open(): boolean {
    return this.#open;
  }

  get inTransaction(): boolean {
    return this.#depth > 0;
  }

  prepare<Params extends unknown[] = unknown[], Row = unknown>(sql: string): SqlStatement<Params, Row> {
    const placeholders = toPgPlaceholders(sql);
    return new PgStatement<Params, Row>(this, placeholders);
  }

  exec(sql: string): void {
    this.flush();
    this.#client.exec(sql, this.#pinned);
  }

  /** Reads (and writes outside a transaction) go at once, after the writes held back. */
  query(sql: string, params: unknown[]): { rows: Record<string, unknown>[]; changes: number } {
    this.flush();
    return this.#client.query(sql, params, this.#pinned);
  }

  /** A write: held back inside a transaction, sent at once outside one. */
  write(placeholders: PgPlaceholders, params: unknown[]): SqlRunResult {
    if (this.#depth === 0)
      return { changes: this.query(placeholders.sql, params).changes, lastInsertRowid: 0 };
    const result: { changes: number | undefined } = { changes: undefined };
    let sql: string;
    try {
      sql = inlineSql(placeholders, params);
    } catch (error) {
      if (error instanceof NulInTextError) throw nulRefused(error);
      throw error;
    }
    this.#deferred.push({ sql, result });
    this.#deferredChars += sql.length;
    if (this.#deferred.length >= MAX_DEFERRED_WRITES || this.#deferredChars >= MAX_DEFERRED_CHARS)
      this.flush();
    const flush = () => this.flush();
    return {
      get changes(): number {
        if (result.changes === undefined) flush();
        return result.changes ?? 0;
      },
      lastInsertRowid: 0,
    };
  }

  /** Sends the writes held back, in one round trip. */
  flush(): void {
    if (this.#deferred.length === 0) return;
    const writes = this.#deferred.splice(0);
    this.#deferredChars = 0;
    const changes = this.#client.batch(
      writes.map((write) => write.sql),
      this.#pinned,
    );
    writes.forEach((write, at) => {
      write.result.changes = changes[at] ?? 0;
    });
  }

  transaction<Fn extends (...args: never[]) => unknown>(fn: Fn): SqlTransaction<Fn> {
    const run =
      (lock: boolean) =>
      (...args: Parameters<Fn>): ReturnType<Fn> =>
        this.#inTransaction(lock, () => fn(...args) as ReturnType<Fn>);
    return Object.assign(run(false), { deferred: run(false), immediate: run(true), exclusive: run(true) });
  }

  /**
   * For a body of writes (search's access counts): they go in one round trip with BEGIN, no wait
   * for locks, and COMMIT around them.
   */
  withoutWaiting<T>(body: () => T): T {
    if (this.inTransaction) return body();
    this.#depth = 1;
    let result: T;
    try {
      result = body();
    } catch (error) {
      this.#deferred.length = 0;
      throw error;
    } finally {
      this.#depth = 0;
    }
    const writes = this.#deferred.splice(0);
    this.#deferredChars = 0;
    try {
      const changes = this.#client.batch([
        "BEGIN",
        "SET LOCAL lock_timeout = '1ms'",
        ...writes.map((write) => write.sql),
        "COMMIT",
      ]);
      writes.forEach((write, at) => {
        write.result.changes = changes[at + 2] ?? 0;
      });
    } catch (error) {
      this.#rollback("ROLLBACK");
      throw error;
    }
    return result;
  }

  isBusy(error: unknown): boolean {
    // lock_not_available: a lock_timeout ran out.
    return error instanceof PgQueryError && error.code === "55P03";
  }

  close(): void {
    if (!this.#open) return;
    this.#open = false;
    this.#deferred.length = 0;
    this.#client.close();
  }

  #inTransaction<T>(lock: boolean, body: () => T): T {
    const level = this.#depth;
    const savepoint = `atrium_${level}`;
    if (level > 0) this.exec(`SAVEPOINT ${savepoint}`);
    else {
      this.#client.exec(lock ? `BEGIN; SELECT pg_advisory_xact_lock(${PALACE_WRITER_LOCK})` : "BEGIN");
      this.#pinned = this.#client.connection;
    }
    this.#depth = level + 1;
    let result: T;
    try {
      result = body();
      if (result instanceof Promise) {
        throw new TypeError("A palace transaction must be synchronous: its function returned a promise");
      }
      // The writes held back fail here, inside the transaction, which then rolls back.
      this.flush();
    } catch (error) {
      this.#depth = level;
      this.#rollback(
        level > 0 ? `ROLLBACK TO SAVEPOINT ${savepoint}; RELEASE SAVEPOINT ${savepoint}` : "ROLLBACK",
      );
      throw error;
    }
    this.#depth = level;
    if (level > 0) {
      this.#client.exec(`RELEASE SAVEPOINT ${savepoint}`, this.#pinned);
      return result;
    }
    // A COMMIT that fails has rolled the transaction back already.
    const pinned = this.#pinned;
    this.#pinned = undefined;
    this.#client.exec("COMMIT", pinned);
    return result;
  }

  #rollback(sql: string): void {
    // Writes of a failed transaction are dropped, not sent.
    this.#deferred.length = 0;
    const pinned = this.#pinned;
    if (this.#depth === 0) this.#pinned = undefined;
    try {
      this.#client.exec(sql, pinned);
    } catch {
      // The connection is gone (the server rolls the transaction back itself) or the commit
      // itself failed; the error being thrown says which.
    }
  }
}

class PgStatement<Params extends unknown[], Row> implements SqlStatement<Params, Row> {
  constructor(
    private readonly db: PgDatabase,
    private readonly placeholders: PgPlaceholders,
  ) {}

  get(...params: Params): Row | undefined {
    return this.all(...params)[0];
  }

  all(...params: Params): Row[] {
    return this.db.query(this.placeholders.sql, pgValues(this.placeholders, params)).rows as Row[];
  }

  run(...params: Params): SqlRunResult {
    return this.db.write(this.placeholders, pgValues(this.placeholders, params));
  }
}
