import { closeSync, constants, openSync } from "node:fs";
import BetterSqlite3, { type Database } from "better-sqlite3";
import { PalaceError } from "../errors.js";
import { PRIVATE_FILE_MODE } from "./palace-dir.js";
import { SqliteDatabase } from "./sqlite/sqlite-database.js";

/**
 * Opens palace.sqlite in WAL mode (readers never wait for the writer) with a busy timeout, so a
 * writer in another process makes this one wait for `BEGIN IMMEDIATE` instead of failing.
 */
export function openDatabase(file: string, busyTimeoutMs: number): SqliteDatabase {
  let db: Database;
  try {
    // Created here, owner-only, before SQLite would create it with the umask's 0644; SQLite gives
    // the -wal and -shm files the database file's mode.
    closeSync(openSync(file, constants.O_RDONLY | constants.O_CREAT, PRIVATE_FILE_MODE));
    db = new BetterSqlite3(file, { timeout: busyTimeoutMs });
  } catch (error) {
    throw new PalaceError("palace/format", `Cannot open ${file}: ${(error as Error).message}`, {
      cause: error,
    });
  }
  try {
    db.pragma("journal_mode = WAL");
    db.pragma("synchronous = NORMAL");
    db.pragma("foreign_keys = ON");
    return new SqliteDatabase(db, busyTimeoutMs);
  } catch (error) {
    db.close();
    throw new PalaceError(
      "palace/format",
      `${file} is not a usable SQLite database (${(error as Error).message}); restore it from an export (\`atrium-palace import\`)`,
      { cause: error },
    );
  }
}
