import type { ChromaClient, Collection, Metadata } from "@atrium/chroma";
import type { Embedding } from "@atrium/spec";
import { accessMetadata } from "../collection-schema/access-keys.js";
import { validateCollectionName } from "../collection-schema/collection-name.js";
import {
  type ChromaTarget,
  defaultEmbedding,
  openDocsCollection,
  recordStorageFormat,
  resolveClient,
} from "../collection-schema/docs-collection.js";
import { inParallel } from "../collection-schema/in-parallel.js";
import { loadChroma } from "../collection-schema/load-chroma.js";
import { chunkId, currentChunking, pageRevision, parseChunkId } from "../collection-schema/page-revision.js";
import { readStoredTree } from "../collection-schema/stored-tree.js";
import { type GroupMapping, type GroupRules, loadGroupRules } from "../docs-folder/access-groups.js";
import { chunkPage, chunkStartLines } from "../docs-folder/chunk-page.js";
import { type PreparedPage, readPage } from "../docs-folder/read-page.js";
import { walkDocs } from "../docs-folder/walk-docs.js";
import { IngestError, PathTreeError, StorageFormatError } from "../errors.js";
import { digestOfTree, indexTree } from "../grep/index/index-tree.js";
import { storedGrepIndexDigest, writeStoredGrepIndex } from "../grep/index/stored-grep-index.js";
import { DEFAULT_CHROMAFS_LIMITS } from "../limits.js";
import { PATH_TREE_ID, type StoredPathTree, type WrittenPathTree } from "../tree/path-tree.js";
import { encodePathTree } from "../tree/path-tree-codec.js";
import { STORAGE_FORMAT_VERSION } from "../tree/storage-format.js";
import { DELETE_BATCH, INGEST_READ_CONCURRENCY, UPSERT_BATCH } from "../tuning.js";
import { pauseForTest } from "./pause-for-test.js";
import {
  PENDING_GROUPS_METADATA_KEY,
  pendingGroupsEntry,
  readPendingGroups,
  recordPendingGroups,
} from "./pending-groups.js";
import {
  dropCollection,
  findCollection,
  recoverInterruptedRebuild,
  stagingCollectionName,
  stagingMetadata,
  swapIn,
} from "./staging-collection.js";
import {
  type ChosenGroups,
  chooseGroupRules,
  type GroupsSummary,
  refuseLegacyUnrestrict,
} from "./stored-groups.js";
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
  /**
   * Ingest everything anew into a new collection beside the old one, which stays in use until
   * the new one is complete and takes its place.
   */
  rebuild?: boolean;
  onProgress?: (progress: IngestProgress) => void;
  /** Told what the ingest found and did beyond its job (an interrupted rebuild finished or dropped). */
  onNotice?: (message: string) => void;
};

export interface IngestSummary {
  collection: string;
  pages: { added: number; changed: number; removed: number; unchanged: number; total: number };
  chunks: { written: number; deleted: number; total: number };
  /** UTF-8 bytes of all pages now in the collection. */
  bytes: number;
  /** Which groups mapping applied and how many pages are restricted. */
  groups: GroupsSummary;
  /** What was found and done beyond the ingest itself (see `onNotice`); usually empty. */
  notices: string[];
  seconds: number;
}

interface PendingChunk {
  id: string;
  text: string;
  metadata: Metadata;
}

/**
 * Ingests a docs directory into a collection, changing only what changed since the stored tree.
 * Order makes it crash-safe (`kill -9` at any moment leaves no restricted page visible and every
 * visible page whole):
 * - the groups mapping is recorded before the first chunk of a collection without a tree;
 * - new chunks go in under new ids first, the tree is written last, and only then are chunks the
 *   tree no longer points at deleted — at every moment the stored tree points at chunks that exist;
 * - a rebuild writes a staging collection beside the old one and swaps it in only once its tree
 *   is written (`staging-collection.ts`); the next ingest finishes or drops an interrupted one.
 */
export async function ingestDocs(options: IngestOptions): Promise<IngestSummary> {
  const started = performance.now();
  await loadChroma("ingestDocs"); // first, so a missing optional peer is named for what needs it
  const embedding = options.embedding ?? (await defaultEmbedding());
  if (options.groupsFile !== undefined && options.clearGroups) {
    throw new IngestError("Pass either a groups file or clearGroups, not both");
  }
  const fileRules = options.groupsFile ? await loadGroupRules(options.groupsFile) : undefined;
  const docs = await walkDocs(options.dir);
  if (docs.length === 0) throw new IngestError(`No .md or .mdx pages found in ${options.dir}`);
  if (docs.length > DEFAULT_CHROMAFS_LIMITS.maxIngestPages) {
    throw new IngestError(
      `${options.dir} has ${docs.length} pages, over the limit of ${DEFAULT_CHROMAFS_LIMITS.maxIngestPages}`,
    );
  }
  validateCollectionName(options.collection);
  const client = await resolveClient(options);
  const recovery = await recoverInterruptedRebuild(client, options.collection);
  for (const notice of recovery.notices) options.onNotice?.(notice);
  const prepared: Prepared = {
    docs,
    embedding,
    fileRules,
    started,
    notices: recovery.notices,
    droppedMapping: recovery.droppedMapping,
  };
  if (options.rebuild) return rebuild(client, options, prepared);
  // A collection this ingest creates is dropped again if the ingest fails before its tree is
  // written: no empty collection, no recorded embedding left.
  const state = { created: !(await findCollection(client, options.collection)), treeWritten: false };
  try {
    return await ingestInto(client, options, prepared, state);
  } catch (error) {
    if (state.created && !state.treeWritten) await dropCollection(client, options.collection);
    throw error;
  }
}

interface Prepared {
  docs: Awaited<ReturnType<typeof walkDocs>>;
  embedding: Embedding;
  fileRules: GroupRules | undefined;
  started: number;
  notices: string[];
  /** The mapping of a half-built rebuild just dropped (see `RebuildRecovery`). */
  droppedMapping: GroupMapping | undefined;
}

/** A plain ingest: only what changed is written, into the collection itself. */
async function ingestInto(
  client: ChromaClient,
  options: IngestOptions,
  prepared: Prepared,
  /** Whether this ingest made the collection; whether the new tree is stored (then it's in use). */
  state: { created: boolean; treeWritten: boolean },
): Promise<IngestSummary> {
  const { embedding } = prepared;
  const collection = await openDocsCollection(client, options.collection, embedding, { create: true });
  const previous = await readPreviousTree(collection, options.collection);
  const keepsStoredGroups = prepared.fileRules === undefined && !options.clearGroups;
  const chosen = chooseGroupRules({
    fileRules: prepared.fileRules,
    clear: options.clearGroups === true,
    prior: previous,
    // Read only when it is what applies: a groups file or a clear replaces even a corrupt one.
    pending:
      previous || !keepsStoredGroups ? undefined : (readPendingGroups(collection) ?? prepared.droppedMapping),
    collection: options.collection,
  });
  const progress = options.onProgress ?? (() => {});
  const pages = await readAllPages(prepared.docs, chosen.rules, progress);
  refuseLegacyUnrestrict(previous, chosen, pages, options.collection);
  // Until the tree is written, this record is the only place the mapping is kept.
  if (!previous) await recordPendingGroups(collection, chosen.rules?.mapping ?? {});
  const plan = planChunks(pages, previous, chosen);
  await writeChunks(collection, embedding, plan.pending, progress);
  const marker = await markerVector(embedding);
  await writeGrepIndex(collection, marker, plan);
  await pauseForTest("tree");
  await writeTree(collection, marker, plan.tree);
  state.treeWritten = true;
  await recordStorageFormat(collection, [PENDING_GROUPS_METADATA_KEY], plan.digest);
  await pauseForTest("cleanup");
  const deleted = await deleteStaleChunks(collection, plan.tree, progress);
  return summarize(options.collection, prepared, plan, chosen, deleted);
}

/**
 * A rebuild: every page written anew into a staging collection beside the old one, which stays
 * in use (with its groups mapping) until the staging one is complete and swapped in.
 */
async function rebuild(
  client: ChromaClient,
  options: IngestOptions,
  prepared: Prepared,
): Promise<IngestSummary> {
  const { embedding } = prepared;
  const keepsStoredGroups = prepared.fileRules === undefined && !options.clearGroups;
  const before = keepsStoredGroups ? await readBeforeRebuild(client, options.collection) : undefined;
  const chosen = chooseGroupRules({
    fileRules: prepared.fileRules,
    clear: options.clearGroups === true,
    prior: before?.tree,
    pending: before?.tree ? undefined : (before?.pending ?? prepared.droppedMapping),
    collection: options.collection,
  });
  const progress = options.onProgress ?? (() => {});
  // Every page is read (and refused if broken) before anything is written.
  const pages = await readAllPages(prepared.docs, chosen.rules, progress);
  refuseLegacyUnrestrict(before?.tree, chosen, pages, options.collection);
  // An embedding that can't answer (server down, bad key) fails here, before anything is written.
  await embedding.embed(["embedding check"]);
  const name = stagingCollectionName(options.collection);
  if (await findCollection(client, name)) {
    throw new IngestError(
      `Collection ${name} exists and was not made by a rebuild of ${options.collection}; a rebuild writes its new collection under that name, so rename or delete it first`,
    );
  }
  const staging = await openDocsCollection(client, name, embedding, {
    create: true,
    metadata: { ...stagingMetadata(options.collection), ...pendingGroupsEntry(chosen.rules?.mapping ?? {}) },
  });
  let swapped = false;
  try {
    const plan = planChunks(pages, undefined, chosen);
    await writeChunks(staging, embedding, plan.pending, progress);
    const marker = await markerVector(embedding);
    await writeGrepIndex(staging, marker, plan);
    await pauseForTest("tree");
    await writeTree(staging, marker, plan.tree);
    await recordStorageFormat(staging, [], plan.digest);
    await swapIn(client, staging, options.collection, () => pauseForTest("swap"));
    swapped = true;
    return summarize(options.collection, prepared, plan, chosen, 0);
  } catch (error) {
    // The old collection is untouched until the swap; a failed rebuild leaves only it.
    if (!swapped) await dropCollection(client, name);
    throw error;
  }
}

interface ChunkPlan {
  tree: WrittenPathTree;
  /** `digestOfTree` of the new tree: names its grep index and, in the collection metadata, the tree. */
  digest: string;
  /** Encodes the grep index of the new tree (every page's chunks, changed or not). */
  grepIndex: () => string;
  pending: PendingChunk[];
  counts: IngestSummary["pages"];
  bytes: number;
  totalChunks: number;
  restricted: number;
}

/** The new tree and the chunks to write: every page new or changed since `previous`. */
function planChunks(
  pages: readonly PreparedPage[],
  previous: StoredPathTree | undefined,
  chosen: ChosenGroups,
): ChunkPlan {
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
  const cut = new Map<string, { texts: string[]; lines: number[] }>();
  const revisions = new Map<string, string>();
  for (const page of pages) {
    const path = page.doc.page;
    const chunks = chunkPage(page.text, { markdown: page.doc.kind === "markdown" });
    const lines = chunkStartLines(chunks);
    cut.set(path, { texts: chunks, lines });
    page.entry.chunks = chunks.length;
    tree.files[path] = page.entry;
    bytes += page.entry.size;
    if (page.entry.groups) restricted++;
    totalChunks += chunks.length;
    const before = previous?.files[path];
    const revision = pageRevision(page.entry, tree.chunking);
    revisions.set(path, revision);
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
    chunks.forEach((text, index) => {
      pending.push({
        id: chunkId(path, revision, index),
        text,
        metadata: chunkMetadata(page, index, lines[index] as number, revision),
      });
    });
  }
  if (previous) counts.removed = Object.keys(previous.files).filter((path) => !(path in tree.files)).length;
  const digest = digestOfTree(tree, revisions);
  const grepIndex = () =>
    indexTree(tree, digest, (path) => cut.get(path) as { texts: string[]; lines: number[] });
  return { tree, digest, grepIndex, pending, counts, bytes, totalChunks, restricted };
}

function summarize(
  collection: string,
  prepared: Prepared,
  plan: ChunkPlan,
  chosen: ChosenGroups,
  deleted: number,
): IngestSummary {
  return {
    collection,
    pages: plan.counts,
    chunks: { written: plan.pending.length, deleted, total: plan.totalChunks },
    bytes: plan.bytes,
    groups: {
      mapping: chosen.source,
      rules: Object.keys(chosen.rules?.mapping ?? {}).length,
      restricted: plan.restricted,
    },
    notices: prepared.notices,
    seconds: (performance.now() - prepared.started) / 1000,
  };
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
 * The tree of a collection about to be rebuilt (for its groups mapping), or the mapping its
 * unfinished first ingest recorded when it has no tree; undefined when the collection doesn't
 * exist. Opened without the embedding check: a rebuild may switch embeddings.
 */
async function readBeforeRebuild(
  client: ChromaClient,
  name: string,
): Promise<{ tree?: StoredPathTree; pending?: GroupMapping } | undefined> {
  const collection = await findCollection(client, name);
  if (!collection) return undefined;
  const tree = await readPreviousTree(
    collection,
    name,
    "Its groups mapping can't be read, and a rebuild without one could make restricted pages public; " +
      "pass --groups-file <file> with --rebuild (or --clear-groups if no mapping should apply)",
  );
  return tree ? { tree } : { pending: readPendingGroups(collection) };
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
    if (written > 0) await pauseForTest("chunks");
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

/** Writes the tree's grep index unless the collection already holds the one of this very tree. */
async function writeGrepIndex(
  collection: Collection,
  vector: number[] | undefined,
  plan: Pick<ChunkPlan, "digest" | "grepIndex">,
): Promise<void> {
  if ((await storedGrepIndexDigest(collection)) === plan.digest) return;
  await writeStoredGrepIndex(collection, plan.grepIndex(), plan.digest, vector);
}

/** The vector the records that aren't chunks (tree, grep index) carry: the server wants one. */
async function markerVector(embedding: Embedding): Promise<number[] | undefined> {
  const [vector] = await embedding.embed(["path tree"]);
  return vector;
}

async function writeTree(
  collection: Collection,
  vector: number[] | undefined,
  tree: WrittenPathTree,
): Promise<void> {
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
