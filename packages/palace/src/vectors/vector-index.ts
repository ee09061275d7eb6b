import { type Collection, chromaEmbeddingFunction, type Metadata, type Where } from "@atrium/chroma";
import { type Embedding, errorMessage, rethrowIfFatal } from "@atrium/spec";
import { PalaceError } from "../errors.js";
import { VECTOR_LIST_PAGE, VECTOR_UPSERT_BATCH } from "../tuning.js";
import type { ChromaConnection } from "./chroma-connection.js";

/** Collection metadata key naming the embedding the vectors were made with. */
export const EMBEDDING_METADATA_KEY = "atrium_embedding";

export interface VectorRecord {
  id: string;
  embedding: number[];
  metadata: Metadata;
}

export interface VectorMatch {
  id: string;
  /** Cosine distance: 0 for the same direction, up to 2. */
  distance: number;
}

/**
 * The palace's drawers in one Chroma collection: a vector and the metadata search filters on
 * (wing, room, hall, timestamp_ms) per drawer id. An index only: everything here can be rebuilt
 * from the registry, and every write is an idempotent upsert or delete by id.
 */
export class VectorIndex {
  private collectionPromise: Promise<Collection> | undefined;

  constructor(
    private readonly connection: ChromaConnection,
    readonly collectionName: string,
    private readonly embedding: Embedding,
  ) {}

  async upsert(records: readonly VectorRecord[]): Promise<void> {
    for (let start = 0; start < records.length; start += VECTOR_UPSERT_BATCH) {
      const batch = records.slice(start, start + VECTOR_UPSERT_BATCH);
      await this.call("upsert vectors", (collection) =>
        collection.upsert({
          ids: batch.map((record) => record.id),
          embeddings: batch.map((record) => record.embedding),
          metadatas: batch.map((record) => record.metadata),
        }),
      );
    }
  }

  async delete(ids: readonly string[]): Promise<void> {
    for (let start = 0; start < ids.length; start += VECTOR_UPSERT_BATCH) {
      const batch = ids.slice(start, start + VECTOR_UPSERT_BATCH);
      await this.call("delete vectors", (collection) => collection.delete({ ids: batch }));
    }
  }

  /**
   * The `n` nearest vectors, optionally only among `restrict.ids` (Chroma's id pre-filter) or
   * those matching `restrict.where` (its metadata pre-filter, much slower on large collections).
   */
  async query(
    vector: number[],
    n: number,
    restrict: { where?: Where; ids?: readonly string[] } = {},
  ): Promise<VectorMatch[]> {
    const result = await this.call("query vectors", (collection) =>
      collection.query({
        queryEmbeddings: [vector],
        nResults: n,
        ...(restrict.where ? { where: restrict.where } : {}),
        ...(restrict.ids ? { ids: [...restrict.ids] } : {}),
        include: ["distances"],
      }),
    );
    const ids = result.ids[0] ?? [];
    const distances = result.distances[0] ?? [];
    // Equal distances (near-identical texts) come back in no fixed order; the id settles them.
    return ids
      .map((id, index) => ({ id, distance: distances[index] ?? 2 }))
      .sort((a, b) => a.distance - b.distance || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  }

  /** Every id in the collection (repair compares them with the registry). */
  async ids(): Promise<string[]> {
    const all: string[] = [];
    for (let offset = 0; ; offset += VECTOR_LIST_PAGE) {
      const page = await this.call("list vectors", (collection) =>
        collection.get({ include: [], limit: VECTOR_LIST_PAGE, offset }),
      );
      all.push(...page.ids);
      if (page.ids.length < VECTOR_LIST_PAGE) return all;
    }
  }

  async count(): Promise<number> {
    return this.call("count vectors", (collection) => collection.count());
  }

  /** Drops the collection, whatever embedding made it (re-embedding starts from an empty one). */
  async drop(): Promise<void> {
    this.collectionPromise = undefined;
    const names = await this.connection.client.listCollections();
    if (names.some((collection) => collection.name === this.collectionName)) {
      await this.connection.client.deleteCollection({ name: this.collectionName });
    }
  }

  private collection(): Promise<Collection> {
    this.collectionPromise ??= this.openCollection().catch((error: unknown) => {
      this.collectionPromise = undefined;
      throw error;
    });
    return this.collectionPromise;
  }

  private async openCollection(): Promise<Collection> {
    const collection = await this.connection.client.getOrCreateCollection({
      name: this.collectionName,
      embeddingFunction: chromaEmbeddingFunction(this.embedding),
      configuration: { hnsw: { space: "cosine" } },
      metadata: { [EMBEDDING_METADATA_KEY]: this.embedding.id },
    });
    const stored = collection.metadata?.[EMBEDDING_METADATA_KEY];
    if (stored !== undefined && stored !== this.embedding.id) {
      throw new PalaceError(
        "palace/conflict",
        `Chroma collection ${this.collectionName} holds vectors from embedding ${String(stored)}, not ${this.embedding.id}; run \`atrium-palace repair --reembed\` to rebuild it`,
      );
    }
    return collection;
  }

  /**
   * One Chroma call; when it fails because the server went away, the connection recovers it and
   * the call runs once more. Anything else becomes a `palace/unavailable` error saying the
   * registry is intact and how to catch the vectors up.
   */
  private async call<T>(what: string, run: (collection: Collection) => Promise<T>): Promise<T> {
    let failure: unknown;
    // Several processes hand the shared server on as each closes: a request may find it gone
    // again just after a recovery, so each recovery earns one more try, up to a few.
    for (let attempt = 0; attempt <= MAX_RECOVERIES; attempt++) {
      try {
        return await run(await this.collection());
      } catch (error) {
        rethrowIfFatal(error);
        if (error instanceof PalaceError) throw error;
        failure = error;
      }
      let recovered = false;
      try {
        recovered = await this.connection.recover();
      } catch (recoverError) {
        rethrowIfFatal(recoverError);
      }
      if (!recovered) break;
      this.collectionPromise = undefined;
    }
    throw unavailable(what, failure);
  }
}

/** Times one request may find the server gone and recovered before it is reported unavailable. */
const MAX_RECOVERIES = 3;

function unavailable(what: string, error: unknown): PalaceError {
  return new PalaceError(
    "palace/unavailable",
    `Could not ${what} in Chroma: ${errorMessage(error)}. The registry (palace.sqlite) is intact; pending vectors are applied on the next open or by \`atrium-palace repair\``,
    { cause: error },
  );
}
