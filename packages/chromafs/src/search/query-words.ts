import { queryTerms } from "@atrium/kit";
import { DEFAULT_CHROMAFS_LIMITS } from "../limits.js";

/**
 * Distinct lowercased words of a query (`queryTerms` of @atrium/kit: Chinese and Japanese
 * runs as overlapping bigrams, common English function words dropped when others remain). Both
 * stores rank with these, and `search` centres its snippets on them.
 */
export function queryWords(query: string): string[] {
  return queryTerms(query, { maxTerms: DEFAULT_CHROMAFS_LIMITS.maxSearchQueryWords });
}
