import type { ChromaServer, ChromaServerHealth } from "@atrium/chroma";
import { type CliValues, UsageError } from "@atrium/kit/cli";
import { ConfigError, type Embedding, errorMessage } from "@atrium/spec";
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

/** Where the docs are, the options of `sh` and `mcp`: a collection on a Chroma server, or a folder. */
export const STORE_OPTIONS = {
  collection: {
    type: "string",
    value: "<name>",
    help: "the collection, on a running Chroma server (--chroma-url) or an embedded one (--path)",
  },
  "chroma-url": { type: "string", value: "<url>", help: "a running Chroma server ($ATRIUM_CHROMA_URL)" },
  path: {
    type: "string",
    value: "<data dir>",
    help: "start (or reuse) an embedded Chroma server there ($ATRIUM_CHROMA_PATH)",
  },
  dir: {
    type: "string",
    value: "<folder>",
    help: "instead of a collection: a plain folder of .md/.mdx pages, no Chroma",
  },
  "groups-file": { type: "string", value: "<file>", help: "with --dir: JSON of glob -> groups" },
  embedding: {
    type: "string",
    value: "<spec>",
    help: "the collection's embedding, as ingest took it ($ATRIUM_EMBEDDING;\ndefault: the one the collection records)",
  },
} as const;

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

export function storeArgs(values: CliValues<typeof STORE_OPTIONS>): StoreArgs {
  return {
    collection: values.collection,
    chromaUrl: values["chroma-url"],
    path: values.path,
    dir: values.dir,
    groupsFile: values["groups-file"],
    embedding: values.embedding,
  };
}

/**
 * Opens the store the arguments name; a server started here is stopped by `close()`. Options that
 * do not go together, or say too little, are a `UsageError` before anything starts.
 */
export async function openStoreFromArgs(args: StoreArgs, env = process.env): Promise<OpenedStore> {
  if (args.dir) {
    if (args.collection || args.chromaUrl || args.path) {
      throw new UsageError("pass either --dir <folder> or --collection with --chroma-url/--path, not both");
    }
    if (args.embedding) throw new UsageError("--embedding applies to a Chroma collection, not to --dir");
    const store = new LocalFolderStore(args.dir, args.groupsFile);
    return { store, health: async () => ({ ok: true, store: store.description }), close: async () => {} };
  }
  if (!args.collection) throw new UsageError("missing --collection <name> (or --dir <folder>)");
  if (args.chromaUrl && args.path) throw new UsageError("pass either --chroma-url or --path, not both");
  const url = args.chromaUrl ?? (args.path ? undefined : env.ATRIUM_CHROMA_URL);
  const path = args.path ?? (url ? undefined : env.ATRIUM_CHROMA_PATH);
  if (!url && !path) {
    throw new UsageError(
      "say where Chroma is: --chroma-url <url> or --path <data dir> (or set ATRIUM_CHROMA_URL / ATRIUM_CHROMA_PATH)",
    );
  }
  // A spec given is checked before any server starts; a bad one is a usage error.
  const spec = args.embedding ?? (env.ATRIUM_EMBEDDING?.trim() || undefined);
  const { isChromaAlive, resolveEmbedding, startChromaServer } = await loadChroma("--collection");
  const chosen = spec === undefined ? undefined : embeddingOption(() => resolveEmbedding(spec, env));
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

/** An `--embedding` (or $ATRIUM_EMBEDDING) spec resolved; one it cannot resolve is a `UsageError`. */
export function embeddingOption(resolve: () => Embedding): Embedding {
  try {
    return resolve();
  } catch (error) {
    throw new UsageError(errorMessage(error), { cause: error });
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

/** `--groups ' staff , ops,'` → `["staff", "ops"]`: names trimmed, empty entries ignored. */
export function parseGroups(list: string | undefined): string[] {
  return [...new Set((list ?? "").split(",").map((group) => group.trim()))].filter(Boolean);
}
