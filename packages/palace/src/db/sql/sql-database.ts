import type { SqlDialect } from "./sql-dialect.js";

/** What `run` reports: rows changed, and the rowid a plain INSERT made (0 where none was made). */
export interface SqlRunResult {
  changes: number;
  lastInsertRowid: number | bigint;
}

/**
 * A prepared statement. Positional parameters are `?`; a single object binds `@name`
 * parameters. Integers come back as numbers, text as strings, blobs as Buffers.
 */
export interface SqlStatement<Params extends unknown[] = unknown[], Row = unknown> {
  get(...params: Params): Row | undefined;
  all(...params: Params): Row[];
  run(...params: Params): SqlRunResult;
}

/**
 * A function run as one transaction (a savepoint when nested). `immediate()` (and `exclusive()`)
 * takes the palace's writer lock first, so writers from every process run one at a time, as
 * SQLite's `BEGIN IMMEDIATE` makes them; the plain call starts a transaction that only reads
 * until it writes.
 */
export interface SqlTransaction<Fn extends (...args: never[]) => unknown> {
  (...args: Parameters<Fn>): ReturnType<Fn>;
  deferred(...args: Parameters<Fn>): ReturnType<Fn>;
  immediate(...args: Parameters<Fn>): ReturnType<Fn>;
  exclusive(...args: Parameters<Fn>): ReturnType<Fn>;
}

/**
 * The palace's storage seam: the few calls its modules make on their database, which
 * better-sqlite3 answers for the embedded palace (`sqlite/sqlite-database.ts`) and a PostgreSQL
 * server answers for a shared one (`postgres/pg-database.ts`). Calls are synchronous on both:
 * the palace's code is written as short synchronous transactions (better-sqlite3's model), and
 * PostgreSQL's are run by a worker thread the caller waits for.
 *
 * SQL written for both sticks to what both engines read alike; where they differ (a JSON array
 * parameter, full-text search, DDL), `dialect` says which to write.
 */
export interface SqlDatabase {
  readonly dialect: SqlDialect;
  /** Where the data lives, for messages: a file path, or a URL without its password. */
  readonly location: string;
  prepare<Params extends unknown[] = unknown[], Row = unknown>(sql: string): SqlStatement<Params, Row>;
  /** Runs statements without parameters (DDL, a script). */
  exec(sql: string): void;
  transaction<Fn extends (...args: never[]) => unknown>(fn: Fn): SqlTransaction<Fn>;
  readonly inTransaction: boolean;
  readonly open: boolean;
  /**
   * Runs `body` (a single write) giving up at once instead of waiting for another writer; a
   * writer's lock then surfaces as an error `isBusy` recognises.
   */
  withoutWaiting<T>(body: () => T): T;
  /** Whether `error` says another writer held the lock (so the caller may retry later). */
  isBusy(error: unknown): boolean;
  close(): void;
}
