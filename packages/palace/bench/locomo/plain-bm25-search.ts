import Database from "better-sqlite3";
import type { LocomoSearchFactory } from "./locomo-bench.js";

/**
 * The benchmark's plain BM25 baseline: one SQLite FTS5 table over each drawer's verbatim content
 * only (default unicode61 tokenizer, no stemming), the query's words OR-ed, ranked by `bm25()`.
 * What a palace would do with nothing but a keyword index, for the palace's search to beat.
 */
export function plainBm25Search(): LocomoSearchFactory {
  return async (conversations) => {
    const db = new Database(":memory:");
    db.exec("CREATE VIRTUAL TABLE drawers USING fts5(content, wing UNINDEXED, turn_id UNINDEXED)");
    const insert = db.prepare("INSERT INTO drawers (content, wing, turn_id) VALUES (?, ?, ?)");
    db.transaction(() => {
      for (const conversation of conversations) {
        for (const draft of conversation.drafts) insert.run(draft.content, draft.wing, draft.turnId ?? "");
      }
    })();
    const scoped = db.prepare(
      "SELECT content, wing, turn_id AS turnId FROM drawers WHERE drawers MATCH ? AND wing = ? ORDER BY bm25(drawers), rowid LIMIT ?",
    );
    const flat = db.prepare(
      "SELECT content, wing, turn_id AS turnId FROM drawers WHERE drawers MATCH ? ORDER BY bm25(drawers), rowid LIMIT ?",
    );
    return {
      search: async (query, { k, wing }) => {
        const words = [...new Set(query.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [])];
        if (words.length === 0) return [];
        const match = words.map((word) => `"${word}"`).join(" OR ");
        const rows = wing === undefined ? flat.all(match, k) : scoped.all(match, wing, k);
        return rows as { content: string; wing: string; turnId: string }[];
      },
      close: () => {
        db.close();
      },
    };
  };
}
