import { rethrowIfFatal } from "@atrium/spec";
import type { SqlDatabase, SqlStatement } from "./sql/sql-database.js";

/**
 * Counts how often search returns each drawer (access_count, last_accessed: the wake-up's
 * "what matters" signal) with one UPDATE per search. A search must never wait for another
 * process's write lock for bookkeeping, so the UPDATE runs with no busy wait; when the lock is
 * taken, the counts wait in memory and go out with the next successful update (or at close).
 */
export class AccessRecorder {
  private readonly pending = new Map<number, number>();
  private lastAccessed = "";
  private readonly statement: SqlStatement<[string, string]>;

  constructor(private readonly db: SqlDatabase) {
    this.statement = db.prepare(
      `UPDATE drawers SET access_count = access_count + j.value, last_accessed = ? FROM (SELECT CAST(e.key AS INTEGER) AS rowid, e.value FROM (${db.dialect.jsonIntegerEntries("?")}) AS e) AS j WHERE drawers.rowid = j.rowid`,
    );
  }

  record(rowids: readonly number[], at: string): void {
    for (const rowid of rowids) this.pending.set(rowid, (this.pending.get(rowid) ?? 0) + 1);
    this.lastAccessed = at;
    this.flush(false);
  }

  /** Writes the pending counts; `wait` lets it wait for the lock (close does). */
  flush(wait: boolean): void {
    if (this.pending.size === 0 || !this.db.open) return;
    const counts = JSON.stringify(Object.fromEntries(this.pending));
    try {
      const update = () => this.statement.run(this.lastAccessed, counts);
      if (wait) update();
      else this.db.withoutWaiting(update);
      this.pending.clear();
    } catch (error) {
      rethrowIfFatal(error);
      if (!this.db.isBusy(error) || wait) throw error;
    }
  }
}
