import type { DrawerDraft } from "../drawers/drawer.js";

/**
 * What the palace's BM25 side indexes for each drawer and how a query is turned into an FTS5
 * MATCH expression. One module so the write path (which fills the FTS5 table) and the search
 * path (which queries it) can never disagree about the columns.
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
 * - the query's function words are dropped: they match nearly every drawer and only add noise.
 */

/** FTS5 columns, in table order; `LEXICAL_COLUMN_WEIGHTS` gives each a bm25() weight. */
export const LEXICAL_COLUMNS = ["content", "speaker", "near", "far", "date"] as const;
export type LexicalColumn = (typeof LEXICAL_COLUMNS)[number];
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
 * Bumped whenever `lexicalRow` or `lexicalMatchQuery` changes what they produce, so stores that
 * record `lexicalTableSql` (which carries it) rebuild their rows.
 */
export const LEXICAL_INDEX_VERSION = 2;

/**
 * Reciprocal rank fusion of the BM25 leg and the vector leg, measured with the offline hashing
 * embedding: it is lexical too (hashed words and trigrams, no IDF), so it re-ranks the evidence
 * BM25 already weighs, and weaker (turn recall at 10 alone: 0.28). Given equal weight it pulls
 * recall at 10 down from 0.78 to 0.59; at 0.2 with k = 10 (BM25's head stays on top, the vector
 * leg breaks near-ties and adds drawers BM25 missed) it costs nothing. A semantic embedding
 * brings evidence BM25 cannot see and deserves more weight; measure before raising it.
 */
export const HYBRID_FUSION = { k: 10, bm25: 1, vector: 0.2 } as const;

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

/**
 * English function words (pronouns, auxiliaries, determiners, prepositions, conjunctions,
 * question words). In a query they match nearly every drawer, so they are dropped unless nothing
 * else is left.
 */
export const QUERY_STOP_WORDS: ReadonlySet<string> = new Set(
  (
    "a about above after again against all am an and any are as at be because been before being below between " +
    "both but by can could did do does doing down during each few for from further had has have having he her " +
    "here hers herself him himself his how i if in into is it its itself just me more most my myself no nor not " +
    "now of off on once only or other our ours ourselves out over own same she should so some such than that the " +
    "their theirs them themselves then there these they this those through to too under until up very was we were " +
    "what when where which while who whom why will with would you your yours yourself yourselves"
  ).split(" "),
);

/**
 * A free-text query as an FTS5 MATCH expression: its distinct words of two or more characters,
 * function words dropped (unless nothing else remains), each a quoted term, OR-ed, so no user
 * input is ever parsed as FTS5 syntax. Undefined when the query has no searchable word.
 */
export function lexicalMatchQuery(query: string): string | undefined {
  return lexicalMatchExpression(lexicalQueryTerms(query));
}

/** The words of a query `lexicalMatchQuery` searches for, in query order. */
export function lexicalQueryTerms(query: string): string[] {
  const words = [...new Set(query.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [])];
  const long = words.filter((word) => [...word].length >= 2);
  const candidates = long.length > 0 ? long : words;
  const content = candidates.filter((word) => !QUERY_STOP_WORDS.has(word));
  return content.length > 0 ? content : candidates;
}

/** Terms from `lexicalQueryTerms` as an FTS5 MATCH expression (quoted, OR-ed); undefined for none. */
export function lexicalMatchExpression(terms: readonly string[]): string | undefined {
  if (terms.length === 0) return undefined;
  return terms.map((word) => `"${word}"`).join(" OR ");
}

/** The text the vector side embeds for a drawer. */
export function vectorText(draft: DrawerDraft): string {
  return draft.speaker ? `${draft.speaker}: ${draft.content}` : draft.content;
}
