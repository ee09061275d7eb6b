import Database from "better-sqlite3";
import { afterAll, describe, expect, it } from "vitest";
import { TestPalaces } from "../test/test-palaces.js";
import { palacePaths } from "./db/palace-dir.js";
import { initPalace, openPalace } from "./open-palace.js";

const palaces = new TestPalaces();
afterAll(() => palaces.cleanup());

describe("palace.kg and pins", () => {
  it("init creates the knowledge graph's and the tunnels' tables in palace.sqlite", async () => {
    const dir = await palaces.dir();
    await initPalace(dir);
    const db = new Database(palacePaths(dir).sqlite, { readonly: true });
    try {
      const tables = (
        db
          .prepare(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND (name LIKE 'kg_%' OR name = 'tunnels') ORDER BY name",
          )
          .all() as { name: string }[]
      ).map((row) => row.name);
      expect(tables).toEqual([
        "kg_aliases",
        "kg_entities",
        "kg_meta",
        "kg_predicates",
        "kg_triples",
        "tunnels",
      ]);
    } finally {
      db.close();
    }
  });

  it("facts added through palace.kg persist across a reopen; a closed palace refuses its graph", async () => {
    const dir = await palaces.dir();
    const first = await openPalace(dir, { create: true, chromaUrl: await palaces.chromaUrl() });
    first.kg.add({ subject: "Caroline", predicate: "lives_in", object: "Boston", validFrom: "2023-05" });
    await first.close();
    expect(() => first.kg).toThrow("closed");
    const again = await palaces.open({}, dir);
    expect(again.kg.factsFor("Caroline", 5)).toEqual(["Caroline — lives_in → Boston (since 2023-05)"]);
  });

  it("pin and unpin set a drawer's pinned flag; an unknown id is named", async () => {
    const palace = await palaces.open();
    const [filed] = await palace.file([{ content: "Remember the milk.", wing: "me", room: "errands" }]);
    expect((await palace.pin(filed!.id)).pinned).toBe(true);
    expect((await palace.list({ pinned: true })).drawers.map((drawer) => drawer.id)).toEqual([filed!.id]);
    expect((await palace.unpin(filed!.id)).pinned).toBe(false);
    await expect(palace.pin("d_missing")).rejects.toThrow("No drawer has id d_missing");
  });
});
