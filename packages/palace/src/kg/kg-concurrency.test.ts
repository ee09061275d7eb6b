import { execFile } from "node:child_process";
import { existsSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterEach, beforeEach, expect, it } from "vitest";
import { openTestDatabase } from "../../test/test-database.js";
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

let database: ReturnType<typeof openTestDatabase>;
beforeEach(() => {
  database = openTestDatabase();
  new KnowledgeGraph(database.db);
});
afterEach(() => database.close());

async function writers(cities: string[]): Promise<Tally[]> {
  const goFile = `${database.path}.go`;
  const runs = cities.map((city) =>
    run(
      process.execPath,
      ["--conditions=@atrium/source", "--import", "tsx", WRITER, database.path, goFile, city, String(PEOPLE)],
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
      "SELECT subject_id, count(*) AS homes FROM kg_triples WHERE predicate = 'lives_in' AND valid_to_ms IS NULL GROUP BY subject_id HAVING homes != 1",
    )
    .all();
  expect(homes).toEqual([]);
  expect(database.db.pragma("integrity_check")).toEqual([{ integrity_check: "ok" }]);
}, 60_000);
