/**
 * Which ranking a search answers with: the fusion (what agents get), or one part alone, which is
 * how the search evaluation shows what each part brings:
 * - `vector`: the embedding alone (cosine similarity, nothing else); a store without embeddings
 *   answers no hits;
 * - `keyword`: plain BM25 over chunk text (whole words as written, no field or title weights);
 * - `fused-without-vector`: the fusion's keyword side alone (plurals and verb endings folded,
 *   chunk BM25 fused with page outlines), the fusion minus its vector leg.
 */
export type SearchRanking = "fused" | "vector" | "keyword" | "fused-without-vector";

export interface SearchOptions {
  /** Default "fused". */
  ranking?: SearchRanking;
}
