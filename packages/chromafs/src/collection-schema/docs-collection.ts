import type { ChromaClient, Collection, Metadata } from "@atrium/chroma";
import type { Embedding } from "@atrium/spec";
import { IngestError } from "../errors.js";
import { FORMAT_METADATA_KEY, refuseNewerFormat, STORAGE_FORMAT_VERSION } from "../tree/storage-format.js";
import { validateCollectionName } from "./collection-name.js";
import { loadChroma } from "./load-chroma.js";
/** Collection metadata key recording which embedding produced the stored vectors. */
export const EMBEDDING_METADATA_KEY = "atrium_embedding";

/**
 * The `digestOfTree` of the collection's current tree, set right after the tree is written: a
 * store that answers grep from its caches reads this one key (the cheapest request there is) to
 * learn whether a re-ingest replaced the tree it holds.
 */
export const TREE_DIGEST_METADATA_KEY = "atrium_tree";

/**
 * A chromadb `ChromaClient`, such as `connectChroma(url)` of `@atrium/chroma` returns. Declared by
 * two of its methods rather than imported, so that this package's published declarations never
 * name its optional peer: a user without `@atrium/chroma` type-checks with `skipLibCheck: false`
 * too. Pass a real `ChromaClient`; anything else fails on first use.
 */
export interface ChromaClientLike {
  // `never` parameters: chromadb's own signatures fit, and nothing calls through this shape.
  getCollection(args: never): Promise<unknown>;
  getOrCreateCollection(args: never): Promise<unknown>;
}

// Compile-time check: a chromadb whose client no longer fits the declared shape breaks the build here.
type Fits<T extends ChromaClientLike> = T;
export type CheckedChromaClient = Fits<ChromaClient>;

/** Where a docs collection lives: a chromadb client, or the URL of a running server. */
export type ChromaTarget =
  | { client: ChromaClientLike; url?: undefined }
  | { url: string; client?: undefined };

export async function resolveClient(target: ChromaTarget): Promise<ChromaClient> {
  if (target.client) return target.client as ChromaClient;
  if (target.url) return (await loadChroma()).connectChroma(target.url);
  throw new IngestError("Pass either a chromadb `client` or the `url` of a Chroma server");
}

export async function defaultEmbedding(): Promise<Embedding> {
  return (await loadChroma()).hashingEmbedding();
}

/**
 * Opens (or, for ingest, creates) a docs collection. Vectors are always computed by Atrium and
 * passed explicitly, so the collection has no server-side embedding function; its metadata names
 * the embedding instead, and a different one is refused — mixed vectors would make search noise.
 * A collection whose metadata records a newer storage format is refused before anything is read.
 */
export async function openDocsCollection(
  client: ChromaClient,
  name: string,
  embedding: Embedding,
  options: { create: boolean; metadata?: Metadata },
): Promise<Collection> {
  validateCollectionName(name);
  const collection = options.create
    ? await client.getOrCreateCollection({
        name,
        embeddingFunction: null,
        configuration: { hnsw: { space: "cosine" } },
        metadata: {
          ...options.metadata,
          [EMBEDDING_METADATA_KEY]: embedding.id,
          [FORMAT_METADATA_KEY]: STORAGE_FORMAT_VERSION,
        },
      })
    : await client.getCollection({ name }).catch((error: unknown) => {
        throw new IngestError(
          `Collection ${name} does not exist on this Chroma server; create it with \`atrium-docs ingest <dir> --collection ${name}\``,
          { cause: error },
        );
      });
  refuseNewerFormat(storedFormat(collection), name);
  const stored = collection.metadata?.[EMBEDDING_METADATA_KEY];
  if (stored !== undefined && stored !== embedding.id) {
    throw new IngestError(
      `Collection ${name} holds vectors from embedding ${String(stored)}, not ${embedding.id}; use the same embedding (atrium-docs: --embedding ${String(stored)}), or re-ingest with --rebuild`,
    );
  }
  return collection;
}

/** The storage format the collection metadata records; format 1 recorded none. */
export function storedFormat(collection: Collection): number {
  const format = collection.metadata?.[FORMAT_METADATA_KEY];
  if (format === undefined || format === null) return 1;
  if (typeof format !== "number" || !Number.isInteger(format) || format < 1) {
    throw new IngestError(
      `Collection ${collection.name} has a corrupt ${FORMAT_METADATA_KEY} metadata value (${JSON.stringify(format)}); re-run \`atrium-docs ingest <dir> --collection ${collection.name} --rebuild\``,
    );
  }
  return format;
}

/**
 * Records the current storage format in the collection metadata once ingest has written a tree
 * of that format (the tree is the authority; this lets readers refuse a newer collection before
 * fetching anything), dropping the keys in `obsolete` (records only an unfinished ingest needs).
 * The whole metadata is written back, so the embedding key stays.
 */
export async function recordStorageFormat(
  collection: Collection,
  obsolete: readonly string[] = [],
  treeDigest?: string,
): Promise<void> {
  const metadata: Metadata = { ...collection.metadata };
  const stale = obsolete.filter((key) => key in metadata);
  const digestKnown = treeDigest === undefined || metadata[TREE_DIGEST_METADATA_KEY] === treeDigest;
  if (metadata[FORMAT_METADATA_KEY] === STORAGE_FORMAT_VERSION && stale.length === 0 && digestKnown) return;
  for (const key of stale) delete metadata[key];
  if (treeDigest !== undefined) metadata[TREE_DIGEST_METADATA_KEY] = treeDigest;
  await collection.modify({ metadata: { ...metadata, [FORMAT_METADATA_KEY]: STORAGE_FORMAT_VERSION } });
}
