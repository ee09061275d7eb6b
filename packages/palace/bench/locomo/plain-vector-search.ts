import { hashingEmbedding } from "@atrium/chroma";
import { cosineSimilarity, type Embedding } from "@atrium/spec";
import type { LocomoSearchFactory } from "./locomo-bench.js";
import type { LocomoHit } from "./locomo-score.js";

/**
 * The benchmark's plain vector baseline: each drawer's verbatim content embedded (the offline
 * hashing embedding unless another is given), ranked by cosine similarity to the embedded query,
 * exhaustively — the exact answer an approximate index such as Chroma's HNSW approaches.
 */
export function plainVectorSearch(embedding: Embedding = hashingEmbedding()): LocomoSearchFactory {
  return async (conversations) => {
    const hits: LocomoHit[] = conversations.flatMap((conversation) =>
      conversation.drafts.map((draft) => ({
        wing: draft.wing,
        turnId: draft.turnId ?? "",
        content: draft.content,
      })),
    );
    const vectors = await embedding.embed(hits.map((hit) => hit.content));
    return {
      search: async (query, { k, wing }) => {
        const [queryVector] = await embedding.embed([query]);
        return hits
          .map((hit, index) => ({ hit, index, score: cosineSimilarity(queryVector!, vectors[index]!) }))
          .filter(({ hit }) => wing === undefined || hit.wing === wing)
          .sort((a, b) => b.score - a.score || a.index - b.index)
          .slice(0, k)
          .map(({ hit }) => hit);
      },
    };
  };
}
