/**
 * Which ranking a search answers with: the fusion of both legs (what agents get), or one leg
 * alone (what the search evaluation compares the fusion against). A store without a vector leg
 * answers `vector` with no hits.
 */
export type SearchRanking = "fused" | "vector" | "keyword";

export interface SearchOptions {
  /** Default "fused". */
  ranking?: SearchRanking;
}
