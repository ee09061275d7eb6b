import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { LEXICAL_COLUMNS, lexicalRow, lexicalTableSql } from "../db/lexical-table.js";
import type { DrawerDraft } from "../drawers/drawer.js";
import { LEXICAL_COLUMN_WEIGHTS, lexicalMatchQuery } from "./lexical-query.js";

const turn = (content: string, speaker = "Ana", timestamp = "2023-05-08T13:56:00.000Z"): DrawerDraft => ({
  content,
  wing: "w",
  room: "r",
  source: "chat",
  speaker,
  timestamp,
});

describe("lexicalMatchQuery", () => {
  it("ORs the distinct content words, dropping function words and one-letter words", () => {
    expect(lexicalMatchQuery("When did Caroline go to the LGBTQ support group?")).toBe(
      '"caroline" OR "go" OR "lgbtq" OR "support" OR "group"',
    );
    expect(lexicalMatchQuery("What is Gina's favourite style of dance, dance?")).toBe(
      '"gina" OR "favourite" OR "style" OR "dance"',
    );
  });

  it("keeps function words when the query has nothing else, and one-letter words when nothing longer", () => {
    expect(lexicalMatchQuery("Who was there?")).toBe('"who" OR "was" OR "there"');
    expect(lexicalMatchQuery("x y")).toBe('"x" OR "y"');
    expect(lexicalMatchQuery("?! --")).toBeUndefined();
  });

  it("never lets FTS5 syntax through", () => {
    expect(lexicalMatchQuery('content:"x" OR NEAR(a b) * ^start')).toBe('"content" OR "near" OR "start"');
  });
});

describe("the index in SQLite FTS5", () => {
  // A question asked in the words of the turn that prompted the answer, not the answer's own.
  const turns = [
    turn("Did you ever find a new hobby to relax?", "Ben"),
    turn("Yes! I signed up for a pottery class last week.", "Ana"),
    turn("Pottery sounds messy, I prefer painting.", "Ben"),
    turn("My sister visited from Sweden.", "Ana", "2023-06-02T10:00:00.000Z"),
  ];

  function search(query: string): number[] {
    const db = new Database(":memory:");
    db.exec(lexicalTableSql("f"));
    const insert = db.prepare(
      `INSERT INTO f (rowid, ${LEXICAL_COLUMNS.join(", ")}) VALUES (?, ${LEXICAL_COLUMNS.map(() => "?").join(", ")})`,
    );
    turns.forEach((draft, i) => {
      const row = lexicalRow(draft, {
        before: [turns[i - 1], turns[i - 2]].filter((t) => t !== undefined),
        after: [turns[i + 1], turns[i + 2]].filter((t) => t !== undefined),
      });
      insert.run(i, ...LEXICAL_COLUMNS.map((column) => row[column]));
    });
    const weights = LEXICAL_COLUMNS.map((column) => LEXICAL_COLUMN_WEIGHTS[column]).join(", ");
    const rows = db
      .prepare(`SELECT rowid FROM f WHERE f MATCH ? ORDER BY bm25(f, ${weights}), rowid`)
      .all(lexicalMatchQuery(query)) as { rowid: number }[];
    db.close();
    return rows.map((row) => row.rowid);
  }

  it("finds the answer through the turn before it, ranked under the turn that holds the words", () => {
    // Ana speaks in turns 1 and 3, and her name is near every other turn: it weighs nothing.
    expect(search("What hobby did Ana find to relax?")).toEqual([0, 1, 2, 3]);
  });

  it("ranks a drawer's own words over its near and far context", () => {
    expect(search("Who visited in June?")).toEqual([3, 2, 1]);
    // "painted" stems to "paint" as "painting" does; the shorter near context of turn 3 ranks first.
    expect(search("painted pots")).toEqual([2, 3, 1, 0]);
  });

  it("finds the drawers of a month named in the query, even without a word of their text", () => {
    expect(search("What happened in June?")).toEqual([3]);
  });
});
