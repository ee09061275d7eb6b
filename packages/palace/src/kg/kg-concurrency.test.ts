import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterEach, beforeEach, expect, it } from "vitest";
import { describeEachStore, type TestDatabase } from "../../test/sql-stores.js";
import { SqliteDatabase } from "../db/sqlite/sqlite-database.js";
import { KnowledgeGraph } from "./knowledge-graph.js";

const run = promisify(execFile);
const WRITER = fileURLToPath(new URL("../../test/kg-writer-process.ts", import.meta.url));
const PACKAGE_DIR = fileURLToPath(new URL("../..", import.meta.url));
const PEOPLE = 300;

interface Tally {
  homes: number;
  refused: number;
  knowsCreated: number;
  knowsUnchanged: number;
}

// Two processes race on one graph: SQLite serializes them with its file lock (BEGIN IMMEDIATE),
// PostgreSQL with the palace's advisory lock; either way the check-then-insert of add holds.
describeEachStore((store) => {
  let database: TestDatabase;
  let signals: string;
  beforeEach(async () => {
    database = await store.open();
    signals = mkdtempSync(join(tmpdir(), "atrium-kg-race-"));
    new KnowledgeGraph(database.db);
  });
  afterEach(() => {
    database.close();
    rmSync(signals, { recursive: true, force: true });
  });

  async function writers(cities: string[]): Promise<Tally[]> {
    const goFile = join(signals, "go");
    const runs = cities.map((city) =>
      run(
        process.execPath,
        [
          "--conditions=@atrium/source",
          "--import",
          "tsx",
          WRITER,
          database.location,
          goFile,
          city,
          String(PEOPLE),
        ],
        { cwd: PACKAGE_DIR },
      ),
    );
    const deadline = Date.now() + 30_000;
    while (!cities.every((city) => existsSync(`${goFile}.${city}.ready`)) && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    writeFileSync(goFile, "");
    return (await Promise.all(runs)).map(({ stdout }) => JSON.parse(stdout) as Tally);
  }

  it("two processes adding racing facts leave one home per person and no duplicates", async () => {
    const [boston, denver] = (await writers(["Boston", "Denver"])) as [Tally, Tally];
    // Each person's home went to whichever writer came first; the other was refused, never both.
    expect(boston.homes + denver.homes).toBe(PEOPLE);
    expect(boston.refused + denver.refused).toBe(PEOPLE);
    expect(boston.knowsCreated + denver.knowsCreated).toBe(PEOPLE);
    expect(boston.knowsUnchanged + denver.knowsUnchanged).toBe(PEOPLE);
    const cities = Number(boston.homes > 0) + Number(denver.homes > 0);
    const kg = new KnowledgeGraph(database.db);
    expect(kg.stats()).toMatchObject({
      entities: PEOPLE + 1 + cities,
      triples: 2 * PEOPLE,
      openTriples: 2 * PEOPLE,
    });
    const homes = database.db
      .prepare(
        "SELECT subject_id, count(*) AS homes FROM kg_triples WHERE predicate = 'lives_in' AND valid_to_ms IS NULL GROUP BY subject_id HAVING count(*) <> 1",
      )
      .all();
    expect(homes).toEqual([]);
    if (database.db instanceof SqliteDatabase) {
      expect(database.db.sqlite.pragma("integrity_check")).toEqual([{ integrity_check: "ok" }]);
    }
  }, 120_000);
});
