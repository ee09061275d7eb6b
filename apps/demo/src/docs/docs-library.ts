import { existsSync, mkdirSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { type ChromaServer, startChromaServer } from "@atrium/chroma";
import {
  ChromaDocStore,
  type DocsSession,
  IngestError,
  type IngestProgress,
  type IngestSummary,
  ingestDocs,
  openDocsSession,
  treeCacheFor,
} from "@atrium/chromafs";
import { ConfigError } from "@atrium/spec";
import { corpusFingerprint, fingerprintMatches, recordFingerprint } from "./corpus-fingerprint.js";
import { DEFAULT_COLLECTION, DEFAULT_CORPUS_DIR, DEFAULT_DATA_DIR } from "./default-locations.js";

export interface DocsLibraryOptions {
  /** A folder of .md/.mdx pages (default: the Mintlify corpus in fixtures/). */
  corpusDir?: string;
  /** Chroma's data and the corpus fingerprint (default apps/demo/.atrium). */
  dataDir?: string;
  collection?: string;
  /** An existing Chroma server instead of the embedded one on `dataDir`. */
  chromaUrl?: string;
  /** Ingest progress, for a progress bar (called only when an ingest runs). */
  onIngestProgress?: (progress: IngestProgress) => void;
  /** What ingest found beyond its job (an interrupted rebuild finished or dropped). */
  onNotice?: (message: string) => void;
}

/** What the last `open` or `refresh` did about the corpus. */
export interface IngestReport {
  /** "first" (no collection yet), "changed" (the corpus differs from the last ingest) or "unchanged" (skipped). */
  reason: "first" | "changed" | "unchanged";
  /** Set when an ingest ran. */
  summary?: IngestSummary;
  /** Fingerprint check plus the ingest, if one ran. */
  ms: number;
}

/** Who asks: pages restricted to groups the user lacks do not exist in their sessions. */
export interface DocsUser {
  id: string;
  groups?: readonly string[];
}

/**
 * The docs the assistant reads: the embedded Chroma server on the data dir, the corpus ingested
 * into one collection (the first time, and again incrementally when it changed), and docs
 * sessions opened per user with their groups.
 */
export interface DocsLibrary {
  readonly corpusDir: string;
  readonly collection: string;
  readonly chromaUrl: string;
  /** The embedded server, when this library started (or reused) one. */
  readonly server: ChromaServer | undefined;
  readonly store: ChromaDocStore;
  readonly lastIngest: IngestReport;
  /** A shell over the docs as `user` may see them; close it when done. */
  openSession(user?: DocsUser): Promise<DocsSession>;
  /** Re-ingests what changed in the corpus since the last ingest, if anything did. */
  refresh(): Promise<IngestReport>;
  close(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
}

export async function openDocsLibrary(options: DocsLibraryOptions = {}): Promise<DocsLibrary> {
  const corpusDir = resolve(options.corpusDir ?? DEFAULT_CORPUS_DIR);
  const dataDir = resolve(options.dataDir ?? DEFAULT_DATA_DIR);
  const collection = options.collection ?? DEFAULT_COLLECTION;
  if (!existsSync(corpusDir) || !statSync(corpusDir).isDirectory()) {
    throw new ConfigError(`the docs corpus ${corpusDir} is not a folder; pass a folder of .md/.mdx pages`);
  }
  mkdirSync(dataDir, { recursive: true });
  const server = options.chromaUrl ? undefined : await startChromaServer({ path: join(dataDir, "chroma") });
  try {
    const url = options.chromaUrl ?? server!.url;
    // Beside Chroma's own files, so deleting the data also forgets that the corpus was ingested.
    const recordDir = server ? server.dataDir : dataDir;
    const syncCorpus = async (force: boolean): Promise<IngestReport> => {
      const started = performance.now();
      const record = { corpusDir, collection, fingerprint: await corpusFingerprint(corpusDir) };
      if (!force && fingerprintMatches(recordDir, record)) {
        return { reason: "unchanged", ms: performance.now() - started };
      }
      const summary = await ingestDocs({
        dir: corpusDir,
        collection,
        url,
        onProgress: options.onIngestProgress,
        onNotice: options.onNotice,
      });
      recordFingerprint(recordDir, record);
      const { added, total } = summary.pages;
      return { reason: added === total ? "first" : "changed", summary, ms: performance.now() - started };
    };
    const openStore = () => ChromaDocStore.open({ url, collection, server });
    let lastIngest = await syncCorpus(false);
    let store: ChromaDocStore;
    try {
      store = await openStore();
    } catch (error) {
      // The record said "ingested" but the collection is gone (dropped by hand): ingest again.
      if (!(error instanceof IngestError) || lastIngest.reason !== "unchanged") throw error;
      lastIngest = await syncCorpus(true);
      store = await openStore();
    }
    const opened: ChromaDocStore = store;
    const library: DocsLibrary = {
      corpusDir,
      collection,
      chromaUrl: url,
      server,
      store: opened,
      get lastIngest() {
        return lastIngest;
      },
      openSession: (user) => openDocsSession({ store: opened, groups: user?.groups ?? [] }),
      async refresh() {
        lastIngest = await syncCorpus(false);
        // Sessions opened from now on see the new tree (and pages read anew).
        if (lastIngest.summary) treeCacheFor(opened).refresh();
        return lastIngest;
      },
      async close() {
        await server?.stop();
      },
      [Symbol.asyncDispose]() {
        return library.close();
      },
    };
    return library;
  } catch (error) {
    await server?.stop();
    throw error;
  }
}
