/** A chunk a store serves to the ranking: `key` is the store's own id for it. */
export interface SearchChunk {
  key: string;
  page: string;
  index: number;
  text: string;
}

/** A chunk of the vector leg: its cosine similarity to the query, and whether it is close enough to be evidence. */
export interface NearChunk extends SearchChunk {
  similarity: number;
  close: boolean;
}

/**
 * What `rankSearch` needs of a store, already limited to the caller's visible pages, so both
 * stores rank the same way with the same code: collection statistics, the chunks holding a
 * substring (what a database can answer without scoring), chunk texts, page outlines, and, where
 * the store has embeddings, the nearest chunks.
 */
export interface SearchSource {
  /** Chunks in the collection (BM25's document count). */
  readonly chunkCount: number;
  /** Their average size in UTF-8 bytes (BM25's average length). */
  readonly averageChunkBytes: number;
  /** For each needle (lower-case), the keys of the visible chunks whose text holds it, case-insensitively. */
  chunksHolding(needles: readonly string[]): Promise<string[][]>;
  /** The visible chunks among `keys` (unknown or hidden ones left out). */
  readChunks(keys: readonly string[]): Promise<SearchChunk[]>;
  /** Outlines (`pageOutline`) of these visible pages. */
  outlines(pages: readonly string[]): Promise<Map<string, string>>;
  /** The `count` visible chunks nearest the query's embedding; absent for a store without embeddings. */
  nearest?(query: string, count: number): Promise<NearChunk[]>;
}
