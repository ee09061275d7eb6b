/**
 * A separate process writing into one palace's graph, for the two-writer test. It waits for
 * `<go-file>` to appear (so both writers start together), then adds, for each of `count`
 * people, a home in its own city (lives_in is single-valued, so the writers race on every
 * person) and one fact both writers add identically. Prints its tally as JSON.
 * The graph is a SQLite file's path or a PostgreSQL URL (postgres://...).
 * Usage: node --conditions=@atrium/source --import tsx kg-writer-process.ts <sqlite-or-url> <go-file> <city> <count>
 */
import { existsSync, writeFileSync } from "node:fs";
import Database from "better-sqlite3";
import { PgDatabase } from "../src/db/postgres/pg-database.js";
import type { SqlDatabase } from "../src/db/sql/sql-database.js";
import { SqliteDatabase } from "../src/db/sqlite/sqlite-database.js";
import { KnowledgeGraph } from "../src/kg/knowledge-graph.js";

const [location, goFile, city, countText] = process.argv.slice(2);
if (location === undefined || goFile === undefined || city === undefined || countText === undefined) {
  throw new Error("usage: kg-writer-process.ts <sqlite-or-url> <go-file> <city> <count>");
}

function open(where: string): SqlDatabase {
  if (/^postgres(ql)?:\/\//.test(where)) return new PgDatabase(where, { lockTimeoutMs: 10_000 });
  const sqlite = new Database(where);
  sqlite.pragma("journal_mode = WAL");
  sqlite.pragma("busy_timeout = 10000");
  return new SqliteDatabase(sqlite, 10_000);
}

const db = open(location);
const kg = new KnowledgeGraph(db, { singleValuedPredicates: ["lives_in"] });
writeFileSync(`${goFile}.${city}.ready`, "");
const pause = new Int32Array(new SharedArrayBuffer(4));
while (!existsSync(goFile)) Atomics.wait(pause, 0, 0, 5);

const tally = { homes: 0, refused: 0, knowsCreated: 0, knowsUnchanged: 0 };
for (let i = 0; i < Number(countText); i++) {
  const home = kg.add({ subject: `Person ${i}`, predicate: "lives_in", object: city });
  if (home.created) tally.homes++;
  else if (home.triple === undefined) tally.refused++;
  const knows = kg.add({ subject: `Person ${i}`, predicate: "knows", object: "Caroline" });
  if (knows.created) tally.knowsCreated++;
  else tally.knowsUnchanged++;
}
db.close();
process.stdout.write(JSON.stringify(tally));
