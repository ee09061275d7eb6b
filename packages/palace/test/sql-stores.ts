import { afterAll, beforeAll, describe, it } from "vitest";
import { PgDatabase } from "../src/db/postgres/pg-database.js";
import type { SqlDatabase } from "../src/db/sql/sql-database.js";
import { SqliteDatabase } from "../src/db/sqlite/sqlite-database.js";
import {
  freshDatabase,
  POSTGRES_MISSING,
  postgresInstalled,
  type RunningPostgres,
  startPostgresIfInstalled,
} from "../test-support/postgres-server.js";
import { openTestDatabase } from "./test-database.js";

/** An empty database for one test; `close` gives it back (SQLite: removes its directory). */
export interface TestDatabase {
  db: SqlDatabase;
  /** What another process opens it by: the SQLite file's path, or the PostgreSQL URL. */
  location: string;
  close(): void;
}

/**
 * One of the palace's stores, for suites that run the same tests on both (`describe.each(testStores())`).
 * Call `use()` in the suite's body: on PostgreSQL it starts a server before the suite and stops it
 * after; each `open()` then hands out an empty database of that server.
 */
export interface TestStore {
  readonly name: "sqlite" | "postgres";
  /** Why the suite cannot run here (PostgreSQL not installed, outside CI); undefined when it can. */
  readonly skipped: string | undefined;
  use(): void;
  open(): Promise<TestDatabase>;
}

/**
 * SQLite (a real file in a temporary directory, WAL) and PostgreSQL (a throwaway server from
 * test-support). Outside CI a machine without PostgreSQL skips its suite with the harness's
 * message; under CI=true it fails instead (`startPostgresIfInstalled` throws), as a skipped
 * suite there would test nothing.
 */
export function testStores(): TestStore[] {
  return [sqliteStore(), postgresStore()];
}

function sqliteStore(): TestStore {
  return {
    name: "sqlite",
    skipped: undefined,
    use: () => {},
    open: async () => {
      const database = openTestDatabase();
      return { db: new SqliteDatabase(database.db), location: database.path, close: database.close };
    },
  };
}

function postgresStore(): TestStore {
  let server: RunningPostgres | undefined;
  // One database per database a test holds at once (most hold one), emptied for each test.
  const pool: { db: PgDatabase; url: string; busy: boolean }[] = [];
  return {
    name: "postgres",
    skipped: postgresInstalled() || process.env.CI === "true" ? undefined : POSTGRES_MISSING,
    use: () => {
      beforeAll(async () => {
        server = await startPostgresIfInstalled();
      });
      afterAll(async () => {
        for (const each of pool.splice(0)) each.db.close();
        await server?.stop();
      });
    },
    open: async () => {
      if (!server) throw new Error("postgres: call use() in the suite before open()");
      let entry = pool.find((each) => !each.busy);
      if (!entry) {
        const url = await freshDatabase(server);
        entry = { db: new PgDatabase(url), url, busy: false };
        pool.push(entry);
      }
      // Everything the previous test made goes, sequences included: as fresh as a new database.
      entry.db.exec("DROP SCHEMA public CASCADE; CREATE SCHEMA public");
      entry.busy = true;
      const held = entry;
      return {
        db: held.db,
        location: held.url,
        close: () => {
          held.busy = false;
        },
      };
    },
  };
}

/**
 * `body` once per store, in a describe block of its own ("on sqlite", "on postgres"); a store that
 * cannot run here is one skipped test saying why (never under CI=true: `testStores` fails there).
 */
export function describeEachStore(body: (store: TestStore) => void): void {
  describe.each(testStores())("on $name", (store) => {
    if (store.skipped !== undefined) {
      it.skip(store.skipped, () => {});
      return;
    }
    store.use();
    body(store);
  });
}
