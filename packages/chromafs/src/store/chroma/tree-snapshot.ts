import type { Metadata } from "@atrium/chroma";
import { TREE_DIGEST_METADATA_KEY } from "../../collection-schema/docs-collection.js";
import { pageRevision, parseChunkId } from "../../collection-schema/page-revision.js";
import { readStoredTree } from "../../collection-schema/stored-tree.js";
import type { Access } from "../../doc-store/doc-store.js";
import { PathTreeError } from "../../errors.js";
import { digestOfTree } from "../../grep/index/index-tree.js";
import type { LoadedGrepIndex } from "../../grep/index/indexed-grep.js";
import { PATH_TREE_ID, type StoredPathTree } from "../../tree/path-tree.js";
import type { ChromaConnection } from "./connection.js";

/** The tree as last read, with each page's chunk revision (which chunk ids are current). */
export interface TreeSnapshot {
  tree: StoredPathTree;
  revisions: Map<string, string>;
  /** `page#revision` of chunks seen that this tree doesn't point at. */
  leftovers: Set<string>;
  /** The collection's grep index checked against this tree (loaded on the first grep). */
  grepIndex?: Promise<LoadedGrepIndex | null>;
  /** `digestOfTree` of this tree, once computed. */
  digest?: string;
}

/** A chunk the server returned, checked against the tree. */
export interface ChunkRow {
  page: string;
  index: number;
  text: string;
  /** The leg's own score (BM25, or cosine similarity) where it comes from a search leg. */
  score?: number;
  metadata?: Metadata;
}

/** The collection's id and tree digest as the server had them, and when they were read. */
interface DigestSeen {
  id: string;
  digest: unknown;
  at: number;
}

/**
 * The collection's path tree as a `ChromaDocStore` last read it: one read shared by concurrent
 * callers, re-read when a chunk of an unknown revision shows a re-ingest happened, and checked
 * against the collection's tree digest (at most once per `recheckMs`) before an answer comes
 * from caches alone.
 */
export class TreeSnapshots {
  private snapshot: TreeSnapshot | undefined;
  private loading: Promise<TreeSnapshot> | undefined;
  /** The read of the collection's tree digest under way, and the last answer (see `isCurrent`). */
  private digestRead: Promise<DigestSeen> | undefined;
  private digestSeen: DigestSeen | undefined;

  constructor(
    private readonly connection: ChromaConnection,
    private readonly recheckMs: number,
  ) {}

  current(): Promise<TreeSnapshot> {
    return this.snapshot ? Promise.resolve(this.snapshot) : this.reload();
  }

  reload(): Promise<TreeSnapshot> {
    this.loading ??= this.load().finally(() => {
      this.loading = undefined;
    });
    return this.loading;
  }

  private async load(): Promise<TreeSnapshot> {
    const { collection } = this.connection;
    const tree = await readStoredTree(collection, collection.name);
    if (!tree) {
      throw new PathTreeError(
        collection.name,
        `Collection ${collection.name} has no path tree (${PATH_TREE_ID}); ingest docs into it first: atrium-docs ingest <dir> --collection ${collection.name}`,
        { missing: true },
      );
    }
    const revisions = new Map(
      Object.entries(tree.files).map(([path, file]) => [path, pageRevision(file, tree.chunking)]),
    );
    const previous = this.snapshot;
    // Every session's TreeCache re-reads the tree; an unchanged one keeps the grep index loaded.
    const same = previous && sameRevisions(previous.revisions, revisions);
    this.snapshot = {
      tree,
      revisions,
      leftovers: new Set(),
      grepIndex: same ? previous.grepIndex : undefined,
      digest: same ? previous.digest : undefined,
    };
    return this.snapshot;
  }

  /**
   * Whether the collection's tree is still the one `snapshot` read: same collection (a rebuild
   * swaps in another) and tree digest (false for a collection ingested before digests). The
   * server is asked at most once per `recheckMs`: a command within that time of the last
   * answer trusts it (so a re-ingest reaches grep's cached path within that time), and commands
   * running at once share one read.
   */
  async isCurrent(snapshot: TreeSnapshot): Promise<boolean> {
    snapshot.digest ??= digestOfTree(snapshot.tree, snapshot.revisions);
    const recent = this.digestSeen;
    if (recent && performance.now() - recent.at < this.recheckMs) return this.matches(recent, snapshot);
    if (!this.digestRead) {
      const reading = this.readDigest().then((seen) => {
        this.digestSeen = seen;
        return seen;
      });
      this.digestRead = reading;
      reading
        .finally(() => {
          if (this.digestRead === reading) this.digestRead = undefined;
        })
        .catch(() => undefined);
    }
    return this.matches(await this.digestRead, snapshot);
  }

  private matches(seen: DigestSeen, snapshot: TreeSnapshot): boolean {
    return seen.id === this.connection.collection.id && seen.digest === snapshot.digest;
  }

  private async readDigest(): Promise<DigestSeen> {
    const at = performance.now();
    const { client, collection } = this.connection;
    const now = await client.getCollection({ name: collection.name });
    return { id: now.id, digest: now.metadata?.[TREE_DIGEST_METADATA_KEY], at };
  }

  /**
   * Keeps the rows whose chunk belongs to a visible page at the tree's revision. An unknown
   * revision of a listed page means the tree changed since it was read: re-read it first.
   */
  async checkRows(
    rows: { id: string; text: string; metadata?: Metadata; score?: number }[],
    access: Access,
  ): Promise<ChunkRow[]> {
    let snapshot = await this.current();
    const parsed = rows.map((row) => ({
      chunk: parseChunkId(row.id),
      text: row.text,
      metadata: row.metadata,
      score: row.score,
    }));
    const unknown = (tree: TreeSnapshot) =>
      parsed.filter(
        ({ chunk }) =>
          chunk &&
          tree.revisions.has(chunk.page) &&
          tree.revisions.get(chunk.page) !== chunk.revision &&
          !tree.leftovers.has(`${chunk.page}#${chunk.revision}`),
      );
    if (unknown(snapshot).length > 0) {
      snapshot = await this.reload();
      // Revisions the fresh tree doesn't know either are leftovers (an ingest in progress, or one
      // that crashed): remember them, so they don't cost a tree read on every query.
      for (const { chunk } of unknown(snapshot)) snapshot.leftovers.add(`${chunk?.page}#${chunk?.revision}`);
    }
    const kept: ChunkRow[] = [];
    for (const { chunk, text, metadata, score } of parsed) {
      if (!chunk || snapshot.revisions.get(chunk.page) !== chunk.revision) continue;
      if (!isVisibleIn(snapshot, chunk.page, access)) continue;
      kept.push({
        page: chunk.page,
        index: chunk.index,
        text,
        metadata,
        ...(score !== undefined && { score }),
      });
    }
    return kept;
  }
}

function sameRevisions(a: ReadonlyMap<string, string>, b: ReadonlyMap<string, string>): boolean {
  if (a.size !== b.size) return false;
  for (const [path, revision] of a) if (b.get(path) !== revision) return false;
  return true;
}

export function isVisibleIn(snapshot: TreeSnapshot, path: string, access: Access): boolean {
  const file = snapshot.tree.files[path];
  if (!file) return false;
  const groups = file.groups;
  return !groups || groups.length === 0 || groups.some((group) => access.groups.includes(group));
}

export function visiblePaths(snapshot: TreeSnapshot, access: Access): string[] {
  return Object.keys(snapshot.tree.files).filter((path) => isVisibleIn(snapshot, path, access));
}
