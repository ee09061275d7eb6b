import type { ChromaClient, Collection, Metadata } from "@atrium/chroma";
import { type Embedding, rethrowIfFatal } from "@atrium/spec";
import { DEFAULT_CHROMAFS_LIMITS } from "../limits.js";
import { PATH_TREE_ID, type StoredPathTree, type WrittenPathTree } from "../tree/path-tree.js";
import { encodePathTree, PathTreeError } from "../tree/path-tree-codec.js";
import { STORAGE_FORMAT_VERSION, StorageFormatError } from "../tree/storage-format.js";
import { DELETE_BATCH, INGEST_READ_CONCURRENCY, UPSERT_BATCH } from "../tuning.js";
import { accessMetadata, type GroupRules, loadGroupRules } from "./access-groups.js";
import { chunkPage, chunkStartLines } from "./chunk-page.js";
import { validateCollectionName } from "./collection-name.js";
import {
  type ChromaTarget,
  defaultEmbedding,
  openDocsCollection,
  recordStorageFormat,
  resolveClient,
} from "./docs-collection.js";
import { IngestError } from "./errors.js";
import { inParallel } from "./in-parallel.js";
import { chunkId, currentChunking, pageRevision, parseChunkId } from "./page-revision.js";
import { type PreparedPage, readPage } from "./read-page.js";
import { chooseGroupRules, type GroupsSummary, refuseLegacyUnrestrict } from "./stored-groups.js";
import { readStoredTree } from "./stored-tree.js";
import { walkDocs } from "./walk-docs.js";

export type IngestPhase = "scan" | "write" | "cleanup";

export interface IngestProgress {
  phase: IngestPhase;
  /** Pages read (scan) or chunks written (write) or stale chunks deleted (cleanup) so far. */
  done: number;
  total: number;
}

export type IngestOptions = ChromaTarget & {
  /** The docs directory (.md/.mdx pages, optional docs.json). */
  dir: string;
  collection: string;
  /**
   * JSON file of glob → groups (see README "Access control"). It replaces the mapping stored with
   * the collection; without it the stored mapping keeps applying. A file holding `{}` drops it.
   */
  groupsFile?: string;
  /** Drop the mapping stored with the collection: only front-matter `groups:` restricts pages. */
  clearGroups?: boolean;
  /** Default: the offline hashing embedding (384 dimensions). */
  embedding?: Embedding;
  /** Delete the collection first and ingest everything anew. */
  rebuild?: boolean;
  onProgress?: (progress: IngestProgress) => void;
};

export interface IngestSummary {
  collection: string;
  pages: { added: number; changed: number; removed: number; unchanged: number; total: number };
  chunks: { written: number; deleted: number; total: number };
  /** UTF-8 bytes of all pages now in the collection. */
  bytes: number;
  /** Which groups mapping applied and how many pages are restricted. */
  groups: GroupsSummary;
  seconds: number;
}

interface PendingChunk {
  id: string;
  text: string;
  metadata: Metadata;
}

/**
 * Ingests a docs directory into a collection, changing only what changed since the stored tree.
 * Order makes it crash-safe: new chunks go in under new ids first, the tree is written last,
 * and only then are chunks the tree no longer points at deleted — at every moment the stored
 * tree points at chunks that exist.
 */
export async function ingestDocs(options: IngestOptions): Promise<IngestSummary> {
  const started = performance.now();
  const embedding = options.embedding ?? defaultEmbedding();
  if (options.groupsFile !== undefined && options.clearGroups) {
    throw new IngestError("Pass either a groups file or clearGroups, not both");
  }
  const fileRules = options.groupsFile ? await loadGroupRules(options.groupsFile) : undefined;
  const docs = await walkDocs(options.dir);
  if (docs.length === 0) throw new IngestError(`No .md or .mdx pages found in ${options.dir}`);
  if (docs.length > DEFAULT_CHROMAFS_LIMITS.ingestMaxPages) {
    throw new IngestError(
      `${options.dir} has ${docs.length} pages, over the limit of ${DEFAULT_CHROMAFS_LIMITS.ingestMaxPages}`,
    );
  }
  const client = await resolveClient(options);
  // A collection this ingest creates (or re-creates for a rebuild) is dropped again if the
  // ingest fails before its tree is written: no empty collection, no recorded embedding left.
  const state = { created: !(await collectionExists(client, options.collection)), treeWritten: false };
  try {
    return await ingestInto(client, options, { docs, embedding, fileRules, started, state });
  } catch (error) {
    if (state.created && !state.treeWritten) await dropCollection(client, options.collection);
    throw error;
  }
}

async function ingestInto(
  client: ChromaClient,
  options: IngestOptions,
  prepared: {
    docs: Awaited<ReturnType<typeof walkDocs>>;
    embedding: Embedding;
    fileRules: GroupRules | undefined;
    started: number;
    /** Whether this ingest made the collection; whether the new tree is stored (then it's in use). */
    state: { created: boolean; treeWritten: boolean };
  },
): Promise<IngestSummary> {
  const { docs, embedding, fileRules, started, state } = prepared;
  const keepsStoredGroups = fileRules === undefined && !options.clearGroups;
  // A rebuild drops the collection, but not the groups mapping stored with it.
  const beforeRebuild =
    options.rebuild && keepsStoredGroups
      ? await readTreeBeforeRebuild(client, options.collection)
      : undefined;
  const collection = options.rebuild
    ? undefined
    : await openDocsCollection(client, options.collection, embedding, { create: true });
  const previous = collection ? await readPreviousTree(collection, options.collection) : undefined;
  const prior = beforeRebuild ?? previous;
  const chosen = chooseGroupRules({
    fileRules,
    clear: options.clearGroups === true,
    prior,
    collection: options.collection,
  });

  const progress = options.onProgress ?? (() => {});
  // Every page is read (and refused if broken) before a rebuild drops anything.
  const pages = await readAllPages(docs, chosen.rules, progress);
  refuseLegacyUnrestrict(prior, chosen, pages, options.collection);
  if (options.rebuild) {
    // An embedding that can't answer (server down, bad key) fails here, before anything is dropped.
    await embedding.embed(["embedding check"]);
    await dropCollection(client, options.collection);
    state.created = true;
  }
  const target =
    collection ?? (await openDocsCollection(client, options.collection, embedding, { create: true }));
  const tree: WrittenPathTree = {
    version: STORAGE_FORMAT_VERSION,
    chunking: currentChunking(),
    files: {},
    groupRules: chosen.rules?.mapping ?? {},
  };
  const pending: PendingChunk[] = [];
  const counts = { added: 0, changed: 0, removed: 0, unchanged: 0, total: pages.length };
  let bytes = 0;
  let totalChunks = 0;
  let restricted = 0;
  for (const page of pages) {
    const path = page.doc.page;
    const chunks = chunkPage(page.text, { markdown: page.doc.kind === "markdown" });
    page.entry.chunks = chunks.length;
    tree.files[path] = page.entry;
    bytes += page.entry.size;
    if (page.entry.groups) restricted++;
    totalChunks += chunks.length;
    const before = previous?.files[path];
    const revision = pageRevision(page.entry, tree.chunking);
    // A tree cut by another chunker (or at other sizes) gives every page a new revision: rewritten.
    if (
      before &&
      previous &&
      pageRevision(before, previous.chunking) === revision &&
      before.chunks === chunks.length
    ) {
      counts.unchanged++;
      continue;
    }
    if (before) counts.changed++;
    else counts.added++;
    const lines = chunkStartLines(chunks);
    chunks.forEach((text, index) => {
      pending.push({
        id: chunkId(path, revision, index),
        text,
        metadata: chunkMetadata(page, index, lines[index] as number, revision),
      });
    });
  }
  if (previous) counts.removed = Object.keys(previous.files).filter((path) => !(path in tree.files)).length;

  await writeChunks(target, embedding, pending, progress);
  await writeTree(target, embedding, tree);
  state.treeWritten = true;
  await recordStorageFormat(target);
  const deleted = await deleteStaleChunks(target, tree, progress);
  return {
    collection: options.collection,
    pages: counts,
    chunks: { written: pending.length, deleted, total: totalChunks },
    bytes,
    groups: { mapping: chosen.source, rules: Object.keys(chosen.rules?.mapping ?? {}).length, restricted },
    seconds: (performance.now() - started) / 1000,
  };
}

async function collectionExists(client: ChromaClient, name: string): Promise<boolean> {
  validateCollectionName(name);
  try {
    await client.getCollection({ name });
    return true;
  } catch (error) {
    rethrowIfFatal(error);
    return false;
  }
}

async function dropCollection(client: ChromaClient, name: string): Promise<void> {
  try {
    await client.deleteCollection({ name });
  } catch (error) {
    rethrowIfFatal(error);
    // Absent already: nothing to drop.
  }
}

async function readPreviousTree(
  collection: Collection,
  name: string,
  ifCorrupt = "Ingest can't tell what changed; run it with --rebuild",
): Promise<StoredPathTree | undefined> {
  try {
    return await readStoredTree(collection, name);
  } catch (error) {
    if (error instanceof PathTreeError || error instanceof StorageFormatError) {
      throw new IngestError(`${error.message}. ${ifCorrupt}`, { cause: error });
    }
    throw error;
  }
}

/**
 * The tree of a collection about to be rebuilt, for its groups mapping; undefined when the
 * collection doesn't exist. Opened without the embedding check: a rebuild may switch embeddings.
 */
async function readTreeBeforeRebuild(
  client: ChromaClient,
  name: string,
): Promise<StoredPathTree | undefined> {
  validateCollectionName(name);
  let collection: Collection;
  try {
    collection = await client.getCollection({ name });
  } catch (error) {
    rethrowIfFatal(error);
    return undefined;
  }
  return readPreviousTree(
    collection,
    name,
    "Its groups mapping can't be read, and a rebuild without one could make restricted pages public; " +
      "pass --groups-file <file> with --rebuild (or --clear-groups if no mapping should apply)",
  );
}

async function readAllPages(
  docs: Awaited<ReturnType<typeof walkDocs>>,
  rules: GroupRules | undefined,
  progress: (progress: IngestProgress) => void,
): Promise<PreparedPage[]> {
  let done = 0;
  // A few reads in flight overlap file I/O with parsing; order is kept by index.
  const pages = await inParallel(docs, INGEST_READ_CONCURRENCY, async (doc) => {
    const page = await readPage(doc, rules);
    done++;
    if (done % 50 === 0 || done === docs.length) progress({ phase: "scan", done, total: docs.length });
    return page;
  });
  return pages;
}

function chunkMetadata(page: PreparedPage, index: number, line: number, revision: string): Metadata {
  const metadata: Metadata = {
    page: page.doc.page,
    chunk_index: index,
    // Where the chunk starts in the page, so grep can read only the chunks that match.
    line,
    kind: "chunk",
    rev: revision,
    ...accessMetadata(page.entry.groups ?? []),
  };
  if (page.entry.title) metadata.title = page.entry.title;
  return metadata;
}

async function writeChunks(
  collection: Collection,
  embedding: Embedding,
  chunks: PendingChunk[],
  progress: (progress: IngestProgress) => void,
): Promise<void> {
  progress({ phase: "write", done: 0, total: chunks.length });
  let inFlight: Promise<void> | undefined;
  let written = 0;
  for (let start = 0; start < chunks.length; start += UPSERT_BATCH) {
    const batch = chunks.slice(start, start + UPSERT_BATCH);
    // Embedding runs here while the previous batch is still being written by the server.
    const embeddings = await embedding.embed(batch.map((chunk) => chunk.text));
    if (embeddings.length !== batch.length) {
      await inFlight;
      throw new IngestError(
        `Embedding ${embedding.id} returned ${embeddings.length} vectors for ${batch.length} texts`,
      );
    }
    await inFlight;
    inFlight = collection
      .upsert({
        ids: batch.map((chunk) => chunk.id),
        documents: batch.map((chunk) => chunk.text),
        metadatas: batch.map((chunk) => chunk.metadata),
        embeddings,
      })
      .then(() => {
        written += batch.length;
        progress({ phase: "write", done: written, total: chunks.length });
      });
  }
  await inFlight;
}

async function writeTree(collection: Collection, embedding: Embedding, tree: WrittenPathTree): Promise<void> {
  const [vector] = await embedding.embed(["path tree"]);
  await collection.upsert({
    ids: [PATH_TREE_ID],
    documents: [encodePathTree(tree)],
    metadatas: [{ kind: "tree" }],
    embeddings: vector ? [vector] : undefined,
  });
}

/**
 * Deletes every chunk the new tree doesn't point at: old revisions of changed pages, removed
 * pages, and leftovers of an earlier ingest that crashed before its tree was written.
 */
async function deleteStaleChunks(
  collection: Collection,
  tree: WrittenPathTree,
  progress: (progress: IngestProgress) => void,
): Promise<number> {
  const current = new Set<string>();
  for (const [path, file] of Object.entries(tree.files)) {
    current.add(`${path}#${pageRevision(file, tree.chunking)}`);
  }
  // Ids alone say page and revision; records that aren't chunks (the tree) don't parse and stay.
  const all = await collection.get({ include: [] });
  const stale = all.ids.filter((id) => {
    const chunk = parseChunkId(id);
    return chunk !== undefined && !current.has(`${chunk.page}#${chunk.revision}`);
  });
  for (let start = 0; start < stale.length; start += DELETE_BATCH) {
    await collection.delete({ ids: stale.slice(start, start + DELETE_BATCH) });
    progress({ phase: "cleanup", done: Math.min(start + DELETE_BATCH, stale.length), total: stale.length });
  }
  return stale.length;
}
