import { ConfigError, type Embedding, errorMessage } from "@atrium/spec";
import { loadChroma, loadedChroma } from "../collection-schema/load-chroma.js";
import type { DocStore } from "../doc-store/doc-store.js";
import { ChromaDocStore, type FollowedServer } from "./chroma/chroma-doc-store.js";
import { LocalFolderStore } from "./local-folder-store.js";

/**
 * A store as plain data, so another thread can open its own client of it: a worker can't share
 * the host's connections, caches or server object, only where the store is.
 */
export type StoreRecipe =
  | {
      kind: "chroma";
      url: string;
      collection: string;
      embedding: string;
      followsServer: boolean;
      treeRecheckMs: number;
      maxChunkCacheBytes: number;
    }
  | { kind: "folder"; root: string; groupsFile?: string };

export interface ReopenableStore {
  recipe: StoreRecipe;
  /** The embedded server a Chroma store follows across restarts; the host answers for it. */
  server?: FollowedServer;
}

/**
 * How `store` can be opened again elsewhere; undefined for a store only this thread can use (a
 * custom `DocStore`, a `ChromaDocStore` opened on a client object, or one whose embedding's id
 * is not a spec `resolveEmbedding` can rebuild here, such as a hand-made embedding).
 */
export function storeRecipeOf(store: DocStore): ReopenableStore | undefined {
  if (store instanceof LocalFolderStore) {
    return { recipe: { kind: "folder", root: store.root, groupsFile: store.groupsFile } };
  }
  if (store instanceof ChromaDocStore) {
    const where = store.reopening();
    if (!where || !resolvable(where.embedding)) return undefined;
    const { server, ...rest } = where;
    return { recipe: { kind: "chroma", ...rest, followsServer: server !== undefined }, server };
  }
  return undefined;
}

function resolvable(embedding: string): boolean {
  // A ChromaDocStore exists only once its open loaded @atrium/chroma.
  const chroma = loadedChroma();
  if (!chroma) return false;
  try {
    chroma.resolveEmbedding(embedding);
    return true;
  } catch (error) {
    if (error instanceof ConfigError) return false;
    throw error;
  }
}

/** Opens a store from its recipe; `server` stands in for the host's server object. */
export async function openStoreFromRecipe(recipe: StoreRecipe, server?: FollowedServer): Promise<DocStore> {
  if (recipe.kind === "folder") return new LocalFolderStore(recipe.root, recipe.groupsFile);
  const { resolveEmbedding } = await loadChroma();
  let embedding: Embedding;
  try {
    embedding = resolveEmbedding(recipe.embedding);
  } catch (error) {
    throw new ConfigError(
      `a worker thread can't open collection ${recipe.collection}: its embedding id ${recipe.embedding} is not an embedding spec (${errorMessage(error).split("\n")[0]}); pass an embedding made by resolveEmbedding, or run sessions in process`,
      { cause: error },
    );
  }
  return ChromaDocStore.open({
    url: recipe.url,
    collection: recipe.collection,
    embedding,
    server: recipe.followsServer ? server : undefined,
    treeRecheckMs: recipe.treeRecheckMs,
    maxChunkCacheBytes: recipe.maxChunkCacheBytes,
  });
}
