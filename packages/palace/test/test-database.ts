import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";

/**
 * A real SQLite file in a fresh temporary directory, opened as the palace opens its own (WAL,
 * a busy timeout), for the knowledge graph's tests. `close` removes the directory.
 */
export function openTestDatabase(): { db: Database.Database; path: string; close: () => void } {
  const dir = mkdtempSync(join(tmpdir(), "atrium-kg-"));
  const path = join(dir, "palace.sqlite");
  const db = new Database(path);
  db.pragma("journal_mode = WAL");
  db.pragma("busy_timeout = 5000");
  return {
    db,
    path,
    close: () => {
      db.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
