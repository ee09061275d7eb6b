import type { ChromaServer, ChromaServerHealth } from "@atrium/chroma";
import { ConfigError, type Embedding } from "@atrium/spec";
import { EMBEDDING_METADATA_KEY } from "../collection-schema/docs-collection.js";
import { loadChroma } from "../collection-schema/load-chroma.js";
import type { DocStore } from "../doc-store/doc-store.js";
import { ChromaDocStore } from "../store/chroma/chroma-doc-store.js";
import { LocalFolderStore } from "../store/local-folder-store.js";

/** Where the docs are, as the `sh` and `mcp` commands take it. */
export interface StoreArgs {
  collection?: string;
  chromaUrl?: string;
  path?: string;
  dir?: string;
  groupsFile?: string;
  /** An embedding spec (`resolveEmbedding`); default $ATRIUM_EMBEDDING, else the collection's own. */
  embedding?: string;
}

export const STORE_OPTIONS = {
  collection: { type: "string" },
  "chroma-url": { type: "string" },
  path: { type: "string" },
  dir: { type: "string" },
  "groups-file": { type: "string" },
  embedding: { type: "string" },
} as const;

export const STORE_USAGE = `Where the docs are (one of):
  --collection <name> --chroma-url <url>   a collection on a running Chroma server ($ATRIUM_CHROMA_URL)
  --collection <name> --path <data dir>    start (or reuse) an embedded Chroma server there ($ATRIUM_CHROMA_PATH)
  --dir <folder>                           a plain folder of .md/.mdx pages, no Chroma
  --groups-file <file>                     with --dir: JSON of glob -> groups
  --embedding <spec>                       the collection's embedding, as ingest took it ($ATRIUM_EMBEDDING;
                                           default: the one the collection records)`;

export interface OpenedStore {
  store: DocStore;
  /** The embedded server the store runs on (`--path`), which restarts itself if it dies. */
  server?: ChromaServer;
  /** Whether the store answers now, and for an embedded server its supervision state. */
  health(): Promise<StoreHealth>;
  close(): Promise<void>;
}

export type StoreHealth = {
  ok: boolean;
  store: string;
  chroma?: ChromaServerHealth;
};

export function storeArgs(values: Record<string, string | boolean | undefined>): StoreArgs {
  const text = (key: string) => (typeof values[key] === "string" ? (values[key] as string) : undefined);
  return {
    collection: text("collection"),
    chromaUrl: text("chroma-url"),
    path: text("path"),
    dir: text("dir"),
    groupsFile: text("groups-file"),
    embedding: text("embedding"),
  };
}

/** Opens the store the arguments name; a server started here is stopped by `close()`. */
export async function openStoreFromArgs(args: StoreArgs, env = process.env): Promise<OpenedStore> {
  if (args.dir) {
    if (args.collection || args.chromaUrl || args.path) {
      throw new ConfigError("pass either --dir <folder> or --collection with --chroma-url/--path, not both");
    }
    if (args.embedding) throw new ConfigError("--embedding applies to a Chroma collection, not to --dir");
    const store = new LocalFolderStore(args.dir, args.groupsFile);
    return { store, health: async () => ({ ok: true, store: store.description }), close: async () => {} };
  }
  if (!args.collection) throw new ConfigError("missing --collection <name> (or --dir <folder>)");
  if (args.chromaUrl && args.path) throw new ConfigError("pass either --chroma-url or --path, not both");
  const url = args.chromaUrl ?? (args.path ? undefined : env.ATRIUM_CHROMA_URL);
  const path = args.path ?? (url ? undefined : env.ATRIUM_CHROMA_PATH);
  if (!url && !path) {
    throw new ConfigError(
      "say where Chroma is: --chroma-url <url> or --path <data dir> (or set ATRIUM_CHROMA_URL / ATRIUM_CHROMA_PATH)",
    );
  }
  // A spec given is checked before any server starts; a bad one is a usage error.
  const spec = args.embedding ?? (env.ATRIUM_EMBEDDING?.trim() || undefined);
  const { isChromaAlive, resolveEmbedding, startChromaServer } = await loadChroma("--collection");
  const chosen = spec === undefined ? undefined : resolveEmbedding(spec, env);
  let server: ChromaServer | undefined;
  try {
    // sh and mcp only read: a read-only data dir is served from a private copy.
    if (!url) server = await startChromaServer({ path: path as string, readOnly: true });
    const serverUrl = url ?? (server as ChromaServer).url;
    const store = await ChromaDocStore.open({
      url: serverUrl,
      server,
      collection: args.collection,
      embedding: chosen ?? (await recordedEmbedding(serverUrl, args.collection, env)),
    });
    const embedded = server;
    const health = async (): Promise<StoreHealth> => {
      if (!embedded) return { ok: await isChromaAlive(serverUrl), store: store.description };
      const chroma = await embedded.refresh();
      return { ok: chroma.state === "up", store: store.description, chroma };
    };
    return { store, server, health, close: async () => server?.stop() };
  } catch (error) {
    await server?.stop();
    throw error;
  }
}

/**
 * The embedding a collection records it was ingested with, resolved from its id (a spec such as
 * "openai:text-embedding-3-small", or "hashing-v1-384"). Undefined when the collection records
 * none or doesn't exist: the store's own open then says what is wrong.
 */
export async function recordedEmbedding(
  url: string,
  collection: string,
  env = process.env,
): Promise<Embedding | undefined> {
  const { connectChroma, resolveEmbedding } = await loadChroma("--collection");
  const client = await connectChroma(url);
  const found = await client.getCollection({ name: collection }).catch(() => undefined);
  const recorded = found?.metadata?.[EMBEDDING_METADATA_KEY];
  if (typeof recorded !== "string") return undefined;
  try {
    return resolveEmbedding(recorded, env);
  } catch (error) {
    // The unknown-spec message lists every form over several lines; one line is enough here.
    const message = (error as Error).message;
    const reason = message.includes("\n") ? "it is none of the --embedding forms" : message;
    throw new ConfigError(
      `Collection ${collection} was ingested with embedding ${recorded}, which can't be used as recorded (${reason}); pass --embedding <spec> (or set ATRIUM_EMBEDDING) naming that embedding`,
      { cause: error },
    );
  }
}
