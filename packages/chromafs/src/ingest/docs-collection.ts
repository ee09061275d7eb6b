import type { ChromaClient, Collection } from "@atrium/chroma";
import { type AtriumEmbedding, connectChroma, hashingEmbedding } from "@atrium/chroma";
import { validateCollectionName } from "./collection-name.js";
import { IngestError } from "./errors.js";

/** Collection metadata key recording which embedding produced the stored vectors. */
export const EMBEDDING_METADATA_KEY = "atrium_embedding";

/** Where a docs collection lives: a chromadb client, or the URL of a running server. */
export type ChromaTarget = { client: ChromaClient; url?: undefined } | { url: string; client?: undefined };

export async function resolveClient(target: ChromaTarget): Promise<ChromaClient> {
  if (target.client) return target.client;
  if (target.url) return connectChroma(target.url);
  throw new IngestError("Pass either a chromadb `client` or the `url` of a Chroma server");
}

export function defaultEmbedding(): AtriumEmbedding {
  return hashingEmbedding();
}

/**
 * Opens (or, for ingest, creates) a docs collection. Vectors are always computed by Atrium and
 * passed explicitly, so the collection has no server-side embedding function; its metadata names
 * the embedding instead, and a different one is refused — mixed vectors would make search noise.
 */
export async function openDocsCollection(
  client: ChromaClient,
  name: string,
  embedding: AtriumEmbedding,
  options: { create: boolean },
): Promise<Collection> {
  validateCollectionName(name);
  const collection = options.create
    ? await client.getOrCreateCollection({
        name,
        embeddingFunction: null,
        configuration: { hnsw: { space: "cosine" } },
        metadata: { [EMBEDDING_METADATA_KEY]: embedding.id },
      })
    : await client.getCollection({ name }).catch((error: unknown) => {
        throw new IngestError(
          `Collection ${name} does not exist on this Chroma server; create it with \`atrium-docs ingest <dir> --collection ${name}\``,
          { cause: error },
        );
      });
  const stored = collection.metadata?.[EMBEDDING_METADATA_KEY];
  if (stored !== undefined && stored !== embedding.id) {
    throw new IngestError(
      `Collection ${name} holds vectors from embedding ${String(stored)}, not ${embedding.id}; use the same embedding (atrium-docs: --embedding ${String(stored)}), or re-ingest with --rebuild`,
    );
  }
  return collection;
}
