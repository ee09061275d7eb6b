import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type ChromaServer, startChromaServer } from "@atrium/chroma";
import { type IngestSummary, ingestDocs } from "../../src/ingest/ingest-docs.js";
import { ChromaDocStore } from "../../src/store/chroma/chroma-doc-store.js";

export interface ChromaCorpus {
  server: ChromaServer;
  store: ChromaDocStore;
  summary: IngestSummary;
  close(): Promise<void>;
}

/** A real Chroma server on a fresh data dir, with `dir` ingested into `collection`. */
export async function startChromaCorpus(dir: string, collection = "mintlify-docs"): Promise<ChromaCorpus> {
  const dataDir = mkdtempSync(join(tmpdir(), "chromafs-chroma-"));
  let server: ChromaServer | undefined;
  const close = async () => {
    try {
      await server?.stop();
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  };
  try {
    server = await startChromaServer({ path: dataDir });
    const summary = await ingestDocs({ dir, collection, url: server.url });
    const store = await ChromaDocStore.open({ url: server.url, collection });
    return { server, store, summary, close };
  } catch (error) {
    await close(); // a failed start or ingest leaves no server and no data dir behind
    throw error;
  }
}

export interface ChromaCorpora {
  server: ChromaServer;
  stores: Record<string, ChromaDocStore>;
  close(): Promise<void>;
}

/**
 * One real Chroma server with each docs dir ingested into its own collection (keys are the
 * collection names): one server start for every corpus of a test file.
 */
export async function startChromaCorpora(dirs: Record<string, string>): Promise<ChromaCorpora> {
  const dataDir = mkdtempSync(join(tmpdir(), "chromafs-chroma-"));
  let server: ChromaServer | undefined;
  const close = async () => {
    try {
      await server?.stop();
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  };
  try {
    server = await startChromaServer({ path: dataDir });
    const stores: Record<string, ChromaDocStore> = {};
    for (const [collection, dir] of Object.entries(dirs)) {
      await ingestDocs({ dir, collection, url: server.url });
      stores[collection] = await ChromaDocStore.open({ url: server.url, collection });
    }
    return { server, stores, close };
  } catch (error) {
    await close();
    throw error;
  }
}
