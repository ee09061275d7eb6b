import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import type { DrawerDraft } from "../drawers/drawer.js";
import { lexicalMatchQuery } from "../search/lexical-query.js";
import {
  dateWords,
  LEXICAL_COLUMN_WEIGHTS,
  LEXICAL_COLUMNS,
  lexicalRow,
  lexicalTableSql,
} from "./lexical-table.js";

const turn = (content: string, speaker = "Ana", timestamp = "2023-05-08T13:56:00.000Z"): DrawerDraft => ({
  content,
  wing: "w",
  room: "r",
  source: "chat",
  speaker,
  timestamp,
});

describe("lexicalTableSql", () => {
  it("declares the columns in order with the porter tokenizer, and names the index version", () => {
    expect(lexicalTableSql("drawers_fts")).toBe(
      "CREATE VIRTUAL TABLE IF NOT EXISTS drawers_fts USING fts5(content, speaker, near, far, date, tokenize = 'porter unicode61 remove_diacritics 2') /* lexical index v2 */",
    );
  });
});

describe("lexicalRow", () => {
  const [a, b, c, d, e] = ["one", "two", "three", "four", "five"].map((word) => turn(word));

  it("indexes the nearest drawers as near context and the next ones out as far context", () => {
    expect(lexicalRow(c!, { before: [b!, a!], after: [d!, e!] })).toEqual({
      content: "three",
      speaker: "Ana",
      near: "two\nfour",
      far: "one\nfive",
      date: "8 May 2023",
    });
  });

  it("takes previous/next as one-drawer context, and works at the ends of a source", () => {
    expect(lexicalRow(a!, { next: b! })).toEqual({
      content: "one",
      speaker: "Ana",
      near: "two",
      far: "",
      date: "8 May 2023",
    });
    expect(lexicalRow(e!, { previous: d!, before: [d!, c!] })).toMatchObject({ near: "four", far: "three" });
    expect(lexicalRow({ content: "alone", wing: "w", room: "r" })).toEqual({
      content: "alone",
      speaker: "",
      near: "",
      far: "",
      date: "",
    });
  });
});

describe("dateWords", () => {
  it("writes the UTC date as day, month name and year", () => {
    expect(dateWords("2023-05-08T13:56:00.000Z")).toBe("8 May 2023");
    expect(dateWords("2022-12-31T23:30:00-02:00")).toBe("1 January 2023");
    expect(dateWords("not a date")).toBe("");
    expect(dateWords(undefined)).toBe("");
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
