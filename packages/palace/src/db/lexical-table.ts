import type { DrawerDraft } from "../drawers/drawer.js";

/**
 * The FTS5 table of the palace's BM25 side and what it indexes for each drawer: the write path
 * (the registry) fills it from here; the search path (`search/lexical-query.ts`) queries the same
 * columns.
 *
 * The table is external to the drawer rows: `rowid` is the drawer's registry rowid.
 *
 * The recipe, measured on LoCoMo conversations 0–4 (one drawer per turn; turn recall at 10:
 * plain BM25 0.544, this index 0.784 alone, 0.782 fused with the hashing embedding):
 * - the turns around a drawer are indexed with it at falling weights (`near` = the drawers right
 *   before and after, `far` = two away). A question often uses the words of the turn that
 *   prompted the answer, or of the answer that followed, rather than the answer's own;
 * - the drawer's date as words ("8 May 2023"), so a query naming a day, month or year finds the
 *   memories of that time;
 * - porter stemming ("dancing" finds "dance");
 * - at query time (`search/lexical-query.ts`), the query's function words are dropped: they
 *   match nearly every drawer and only add noise.
 */

/** The FTS5 table's name. */
export const LEXICAL_TABLE = "drawers_fts";

/** FTS5 columns, in table order; `search/lexical-query.ts` gives each a bm25() weight. */
export const LEXICAL_COLUMNS = ["content", "speaker", "near", "far", "date"] as const;
export type LexicalColumn = (typeof LEXICAL_COLUMNS)[number];

/** A bm25() weight for each of `LEXICAL_COLUMNS`. */
export const LEXICAL_COLUMN_WEIGHTS: Readonly<Record<LexicalColumn, number>> = {
  content: 1,
  speaker: 0.5,
  near: 0.5,
  far: 0.2,
  date: 1,
};

/**
 * How many drawers on each side of a drawer (same source, by position) its row includes. A write
 * that adds, removes or moves a drawer changes the rows of the drawers this close to it.
 */
export const LEXICAL_CONTEXT_RADIUS = 2;

/**
 * Bumped whenever `lexicalRow` or `lexicalMatchQuery` (search/lexical-query.ts) changes what they produce, so stores that
 * record `lexicalTableSql` (which carries it) rebuild their rows.
 */
export const LEXICAL_INDEX_VERSION = 2;

/** `CREATE VIRTUAL TABLE` for the index under `tableName`. */
export function lexicalTableSql(tableName: string): string {
  return `CREATE VIRTUAL TABLE IF NOT EXISTS ${tableName} USING fts5(${LEXICAL_COLUMNS.join(", ")}, tokenize = 'porter unicode61 remove_diacritics 2') /* lexical index v${LEXICAL_INDEX_VERSION} */`;
}

/** The drawers around one drawer in its source, nearest first on each side. */
export interface LexicalNeighbours {
  /** The drawer right before; shorthand for `before: [previous]`. */
  previous?: DrawerDraft;
  /** The drawer right after; shorthand for `after: [next]`. */
  next?: DrawerDraft;
  /** Up to `LEXICAL_CONTEXT_RADIUS` drawers before, nearest first; wins over `previous`. */
  before?: readonly DrawerDraft[];
  /** Up to `LEXICAL_CONTEXT_RADIUS` drawers after, nearest first; wins over `next`. */
  after?: readonly DrawerDraft[];
}

/** The column values for one drawer, given the drawers around it in the same source. */
export function lexicalRow(
  draft: DrawerDraft,
  neighbours: LexicalNeighbours = {},
): Record<LexicalColumn, string> {
  const before = neighbours.before ?? (neighbours.previous ? [neighbours.previous] : []);
  const after = neighbours.after ?? (neighbours.next ? [neighbours.next] : []);
  const at = (distance: number) =>
    [before[distance - 1], after[distance - 1]]
      .flatMap((drawer) => (drawer ? [drawer.content] : []))
      .join("\n");
  return {
    content: draft.content,
    speaker: draft.speaker ?? "",
    near: at(1),
    far: at(2),
    date: dateWords(draft.timestamp),
  };
}

const MONTHS = [
  "January",
  "February",
  "March",
  "April",
  "May",
  "June",
  "July",
  "August",
  "September",
  "October",
  "November",
  "December",
];

/** "2023-05-08T13:56:00.000Z" → "8 May 2023" (UTC); "" when there is no readable time. */
export function dateWords(timestamp: string | undefined): string {
  const time = timestamp === undefined ? Number.NaN : Date.parse(timestamp);
  if (Number.isNaN(time)) return "";
  const date = new Date(time);
  return `${date.getUTCDate()} ${MONTHS[date.getUTCMonth()]} ${date.getUTCFullYear()}`;
}
