import { lexicalMatchExpression } from "../db/sqlite/fts5-lexical-index.js";

/**
 * How a query is turned into the words the BM25 leg searches (`db/lexical-index.ts`; each
 * column's weight is in `db/lexical-table.ts`), and how the BM25 and vector legs are fused.
 */

/**
 * Reciprocal rank fusion of the BM25 leg and the vector leg, measured with the offline hashing
 * embedding: it is lexical too (hashed words and trigrams, no IDF), so it re-ranks the evidence
 * BM25 already weighs, and weaker (turn recall at 10 alone: 0.28). Given equal weight it pulls
 * recall at 10 down from 0.78 to 0.59; at 0.2 with k = 10 (BM25's head stays on top, the vector
 * leg breaks near-ties and adds drawers BM25 missed) it costs nothing. A semantic embedding
 * brings evidence BM25 cannot see and deserves more weight; measure before raising it.
 */
export const HYBRID_FUSION = { k: 10, bm25: 1, vector: 0.2 } as const;

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
