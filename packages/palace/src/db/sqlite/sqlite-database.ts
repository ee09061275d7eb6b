import type { Database } from "better-sqlite3";
import type { SqlDatabase, SqlStatement, SqlTransaction } from "../sql/sql-database.js";
import { SQLITE_DIALECT } from "../sql/sql-dialect.js";

/**
 * The palace's storage seam over an embedded SQLite file: better-sqlite3's own statements and
 * transactions, handed out as they are (nothing between the palace and SQLite at run time).
 */
export class SqliteDatabase implements SqlDatabase {
  readonly dialect = SQLITE_DIALECT;

  constructor(
    /** The better-sqlite3 connection, for what only SQLite has (pragmas, `user_version`). */
    readonly sqlite: Database,
    readonly busyTimeoutMs = 5_000,
  ) {}

  get location(): string {
    return this.sqlite.name;
  }

  get open(): boolean {
    return this.sqlite.open;
  }

  get inTransaction(): boolean {
    return this.sqlite.inTransaction;
  }

  prepare<Params extends unknown[] = unknown[], Row = unknown>(sql: string): SqlStatement<Params, Row> {
    return this.sqlite.prepare<Params, Row>(sql) as unknown as SqlStatement<Params, Row>;
  }

  exec(sql: string): void {
    this.sqlite.exec(sql);
  }

  transaction<Fn extends (...args: never[]) => unknown>(fn: Fn): SqlTransaction<Fn> {
    return this.sqlite.transaction(fn as never) as unknown as SqlTransaction<Fn>;
  }

  withoutWaiting<T>(body: () => T): T {
    if (this.sqlite.inTransaction) return body();
    this.sqlite.pragma("busy_timeout = 0");
    try {
      return body();
    } finally {
      this.sqlite.pragma(`busy_timeout = ${this.busyTimeoutMs}`);
    }
  }

  isBusy(error: unknown): boolean {
    return (error as { code?: string } | null)?.code === "SQLITE_BUSY";
  }

  close(): void {
    this.sqlite.close();
  }
}
