import { type ChromaServer, startChromaServer } from "@atrium/chroma";
import { ConfigError } from "@atrium/spec";
import { ChromaDocStore } from "../store/chroma-doc-store.js";
import type { DocStore } from "../store/doc-store.js";
import { LocalFolderStore } from "../store/local-folder-store.js";

/** Where the docs are, as the `sh` and `mcp` commands take it. */
export interface StoreArgs {
  collection?: string;
  chromaUrl?: string;
  path?: string;
  dir?: string;
  groupsFile?: string;
}

export const STORE_OPTIONS = {
  collection: { type: "string" },
  "chroma-url": { type: "string" },
  path: { type: "string" },
  dir: { type: "string" },
  "groups-file": { type: "string" },
} as const;

export const STORE_USAGE = `Where the docs are (one of):
  --collection <name> --chroma-url <url>   a collection on a running Chroma server ($ATRIUM_CHROMA_URL)
  --collection <name> --path <data dir>    start (or reuse) an embedded Chroma server there ($ATRIUM_CHROMA_PATH)
  --dir <folder>                           a plain folder of .md/.mdx pages, no Chroma
  --groups-file <file>                     with --dir: JSON of glob -> groups`;

export interface OpenedStore {
  store: DocStore;
  close(): Promise<void>;
}

export function storeArgs(values: Record<string, string | boolean | undefined>): StoreArgs {
  const text = (key: string) => (typeof values[key] === "string" ? (values[key] as string) : undefined);
  return {
    collection: text("collection"),
    chromaUrl: text("chroma-url"),
    path: text("path"),
    dir: text("dir"),
    groupsFile: text("groups-file"),
  };
}

/** Opens the store the arguments name; a server started here is stopped by `close()`. */
export async function openStoreFromArgs(args: StoreArgs, env = process.env): Promise<OpenedStore> {
  if (args.dir) {
    if (args.collection || args.chromaUrl || args.path) {
      throw new ConfigError("pass either --dir <folder> or --collection with --chroma-url/--path, not both");
    }
    const store = new LocalFolderStore(args.dir, args.groupsFile);
    return { store, close: async () => {} };
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
  let server: ChromaServer | undefined;
  try {
    if (!url) server = await startChromaServer({ path: path as string });
    const store = await ChromaDocStore.open({
      url: url ?? (server as ChromaServer).url,
      collection: args.collection,
    });
    return { store, close: async () => server?.stop() };
  } catch (error) {
    await server?.stop();
    throw error;
  }
}
