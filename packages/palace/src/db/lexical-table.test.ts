import { describe, expect, it } from "vitest";
import type { DrawerDraft } from "../drawers/drawer.js";
import { dateWords, lexicalRow, lexicalTableSql } from "./lexical-table.js";

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
