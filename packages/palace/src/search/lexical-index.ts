import type { DrawerDraft } from "../drawers/drawer.js";

/**
 * What the palace's BM25 side indexes for each drawer and how a query is turned into an FTS5
 * MATCH expression. One module so the write path (which fills the FTS5 table) and the search
 * path (which queries it) can never disagree about the columns.
 *
 * The table is external to the drawer rows: `rowid` is the drawer's registry rowid.
 */

/** FTS5 columns, in table order; `LEXICAL_COLUMN_WEIGHTS` gives each a bm25() weight. */
export const LEXICAL_COLUMNS = ["content", "speaker"] as const;
export type LexicalColumn = (typeof LEXICAL_COLUMNS)[number];
export const LEXICAL_COLUMN_WEIGHTS: Readonly<Record<LexicalColumn, number>> = { content: 1, speaker: 0.5 };

/** `CREATE VIRTUAL TABLE` for the index under `tableName`. */
export function lexicalTableSql(tableName: string): string {
  return `CREATE VIRTUAL TABLE IF NOT EXISTS ${tableName} USING fts5(${LEXICAL_COLUMNS.join(", ")}, tokenize = 'porter unicode61 remove_diacritics 2')`;
}

/** The column values for one drawer; its neighbours in the same source (previous, next) may add context. */
export function lexicalRow(
  draft: DrawerDraft,
  _neighbours: { previous?: DrawerDraft; next?: DrawerDraft } = {},
): Record<LexicalColumn, string> {
  return { content: draft.content, speaker: draft.speaker ?? "" };
}

/**
 * A free-text query as an FTS5 MATCH expression: each word a quoted term, OR-ed, so no user input
 * is ever parsed as FTS5 syntax. Undefined when the query has no searchable word.
 */
export function lexicalMatchQuery(query: string): string | undefined {
  const words = query.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  const unique = [...new Set(words)];
  if (unique.length === 0) return undefined;
  return unique.map((word) => `"${word}"`).join(" OR ");
}

/** The text the vector side embeds for a drawer. */
export function vectorText(draft: DrawerDraft): string {
  return draft.speaker ? `${draft.speaker}: ${draft.content}` : draft.content;
}
