import type { AtriumEmbedding, ChromaClient, Collection, Where, WhereDocument } from "@atrium/chroma";
import { AtriumError, rethrowIfFatal } from "@atrium/spec";
import { groupKey, PUBLIC_KEY } from "../ingest/access-groups.js";
import {
  type ChromaTarget,
  defaultEmbedding,
  openDocsCollection,
  resolveClient,
} from "../ingest/docs-collection.js";
import {
  ACCESS_LIST_MAX_PATHS,
  SEARCH_CANDIDATES,
  SEARCH_SNIPPET_MAX_CHARS,
  STORE_IDS_PER_QUERY,
  STORE_PARALLEL_QUERIES,
} from "../ingest/limits.js";
import { chunkId, pageRevision, parseChunkId } from "../ingest/page-revision.js";
import { PATH_TREE_ID, type PathTree, type PathTreeFile } from "../tree/path-tree.js";
import { decodePathTree, PathTreeError } from "../tree/path-tree-codec.js";
import type { Access, DocStore, SearchHit, TextFilter } from "./doc-store.js";

export type ChromaDocStoreOptions = ChromaTarget & {
  collection: string;
  /** Must be the embedding the collection was ingested with; default the offline hashing one. */
  embedding?: AtriumEmbedding;
};

/** The store answered something inconsistent (chunks missing for a page the tree lists). */
export class DocStoreError extends AtriumError {
  constructor(message: string) {
    super("UNAVAILABLE", message, { isFatal: true });
  }
}

/** The tree as last read, with each page's chunk revision (which chunk ids are current). */
interface TreeSnapshot {
  tree: PathTree;
  revisions: Map<string, string>;
}

interface ChunkRow {
  page: string;
  text: string;
}

const RRF_K = 60;
/** Above this many paths, `within` is applied to the answer rather than sent as a filter. */
const WITHIN_AS_FILTER_MAX_PATHS = 200;
const QUERY_WORD = /[\p{L}\p{N}_]{2,}/gu;

/**
 * The DocStore over a Chroma collection written by `ingestDocs`.
 *
 * Access is enforced twice. Every query carries a filter for the caller's groups, so hidden
 * chunks never leave the server — page reads ask for the chunk ids of visible pages only, and
 * text filters and searches carry the page list the tree hides (`page $nin [...]`, or
 * `page $in [visible]` when that is shorter), because the pinned server evaluates those several
 * times faster than the per-group boolean keys every chunk also carries (used beyond
 * ACCESS_LIST_MAX_PATHS). And every chunk that comes back is checked against the tree: its page
 * must be listed, visible, and at the chunk's revision. A revision the tree doesn't know means a
 * re-ingest happened (possibly changing access), so the tree is re-read before answering.
 */
export class ChromaDocStore implements DocStore {
  readonly description: string;
  private snapshot: TreeSnapshot | undefined;
  private loading: Promise<TreeSnapshot> | undefined;

  private constructor(
    private readonly collection: Collection,
    private readonly embedding: AtriumEmbedding,
    where: string,
  ) {
    this.description = `chroma ${where} collection ${collection.name}`;
  }

  static async open(options: ChromaDocStoreOptions): Promise<ChromaDocStore> {
    const client: ChromaClient = await resolveClient(options);
    const embedding = options.embedding ?? defaultEmbedding();
    const collection = await openDocsCollection(client, options.collection, embedding, { create: false });
    return new ChromaDocStore(collection, embedding, options.url ?? "(client)");
  }

  async readTree(): Promise<PathTree> {
    return (await this.reloadTree()).tree;
  }

  async readPages(paths: readonly string[], access: Access): Promise<Map<string, string>> {
    const wanted = [...new Set(paths)];
    let snapshot = await this.currentTree();
    let pages = await this.fetchPages(snapshot, wanted, access);
    const incomplete = wanted.filter((path) => pages.get(path) === null);
    if (incomplete.length > 0) {
      snapshot = await this.reloadTree();
      const retried = await this.fetchPages(snapshot, incomplete, access);
      pages = new Map([...pages, ...retried]);
    }
    const result = new Map<string, string>();
    for (const [path, text] of pages) {
      if (text === null) {
        throw new DocStoreError(
          `${this.description}: the chunks of ${path} are missing; re-run ingest for this collection`,
        );
      }
      result.set(path, text);
    }
    return result;
  }

  async findPages(filter: TextFilter, access: Access, within?: readonly string[]): Promise<string[]> {
    const snapshot = await this.currentTree();
    const scope = within ? within.filter((path) => isVisibleIn(snapshot, path, access)) : undefined;
    if (scope && scope.length === 0) return [];
    const document = documentFilter(filter);
    const everyVisible = () => (scope ? [...new Set(scope)] : visiblePaths(snapshot, access)).sort();
    if (!document) return everyVisible();
    // A short `within` list is the cheapest filter there is; a long one (grep -r over most of
    // the tree) costs more than it saves, so the access filter runs and the scope is applied here.
    const inScope = scope ? new Set(scope) : undefined;
    const narrow = inScope && inScope.size <= WITHIN_AS_FILTER_MAX_PATHS;
    let ids: string[];
    try {
      const where = narrow ? pathListWhere("$in", [...inScope]) : this.accessFilter(snapshot, access);
      ids = (await this.collection.get({ where, whereDocument: document, include: [] })).ids;
    } catch (error) {
      rethrowIfFatal(error);
      // A pattern the server's regex engine rejects can't narrow anything: every visible page is
      // a (correct) superset of the matches, and grep itself decides.
      if (isRejectedFilter(error)) return everyVisible();
      throw error;
    }
    const rows = ids.map((id) => ({ id, text: "" }));
    const pages = new Set((await this.checkRows(rows, access)).map((row) => row.page));
    return [...pages].filter((page) => !inScope || inScope.has(page)).sort();
  }

  async search(query: string, access: Access, limit: number): Promise<SearchHit[]> {
    const wanted = Math.max(1, Math.min(Math.floor(limit), SEARCH_CANDIDATES));
    const snapshot = await this.currentTree();
    const where = this.accessFilter(snapshot, access);
    const [vector] = await (this.embedding.generateForQueries ?? this.embedding.generate)([query]);
    const semantic = await this.collection.query({
      queryEmbeddings: vector ? [vector] : [],
      nResults: SEARCH_CANDIDATES,
      where,
      include: ["documents"],
    });
    const semanticRows = (semantic.ids[0] ?? []).map((id, row) => ({
      id,
      text: semantic.documents[0]?.[row] ?? "",
    }));
    const ranked = [await this.checkRows(semanticRows, access)];
    const words = [...new Set(query.toLowerCase().match(QUERY_WORD) ?? [])].slice(0, 8);
    if (words.length > 0) ranked.push(await this.keywordPass(words, where, access));
    return fuse(ranked, words, wanted);
  }

  /** Chunks containing any query word (case-insensitive), best first by distinct words present. */
  private async keywordPass(words: string[], where: Where | undefined, access: Access): Promise<ChunkRow[]> {
    const result = await this.collection.get({
      where,
      whereDocument: { $regex: `(?i)(?:${words.map(escapeRegex).join("|")})` },
      include: ["documents"],
      limit: SEARCH_CANDIDATES * 4,
    });
    const rows = await this.checkRows(
      result.ids.map((id, row) => ({ id, text: result.documents[row] ?? "" })),
      access,
    );
    const present = (row: ChunkRow) => {
      const lower = row.text.toLowerCase();
      return words.filter((word) => lower.includes(word)).length;
    };
    return rows
      .map((row) => ({ row, score: present(row) }))
      .sort((a, b) => b.score - a.score)
      .slice(0, SEARCH_CANDIDATES)
      .map(({ row }) => row);
  }

  /**
   * Keeps the rows whose chunk belongs to a visible page at the tree's revision. An unknown
   * revision of a listed page means the tree changed since it was read: re-read it first.
   */
  private async checkRows(rows: { id: string; text: string }[], access: Access): Promise<ChunkRow[]> {
    let snapshot = await this.currentTree();
    const parsed = rows.map((row) => ({ chunk: parseChunkId(row.id), text: row.text }));
    const stale = parsed.some(
      ({ chunk }) =>
        chunk && snapshot.revisions.has(chunk.page) && snapshot.revisions.get(chunk.page) !== chunk.revision,
    );
    if (stale) snapshot = await this.reloadTree();
    const kept: ChunkRow[] = [];
    for (const { chunk, text } of parsed) {
      if (!chunk || snapshot.revisions.get(chunk.page) !== chunk.revision) continue;
      if (!isVisibleIn(snapshot, chunk.page, access)) continue;
      kept.push({ page: chunk.page, text });
    }
    return kept;
  }

  /** Texts of the visible pages among `paths`; null marks a page whose chunks are missing. */
  private async fetchPages(
    snapshot: TreeSnapshot,
    paths: string[],
    access: Access,
  ): Promise<Map<string, string | null>> {
    const visible = paths.filter((path) => isVisibleIn(snapshot, path, access));
    const ids = visible.flatMap((path) => {
      const file = snapshot.tree.files[path] as PathTreeFile;
      const revision = snapshot.revisions.get(path) as string;
      return Array.from({ length: file.chunks }, (_, index) => chunkId(path, revision, index));
    });
    // Only ids of pages the tree shows this caller are asked for: the request itself is the
    // access filter (a `where` on top would double the cost of the biggest query there is).
    const texts = new Map<string, string>();
    const batches: string[][] = [];
    for (let start = 0; start < ids.length; start += STORE_IDS_PER_QUERY) {
      batches.push(ids.slice(start, start + STORE_IDS_PER_QUERY));
    }
    const worker = async () => {
      for (let batch = batches.shift(); batch; batch = batches.shift()) {
        const result = await this.collection.get({ ids: batch, include: ["documents"] });
        result.ids.forEach((id, row) => texts.set(id, result.documents[row] ?? ""));
      }
    };
    await Promise.all(Array.from({ length: Math.min(STORE_PARALLEL_QUERIES, batches.length) }, worker));
    const pages = new Map<string, string | null>();
    for (const path of visible) {
      const file = snapshot.tree.files[path] as PathTreeFile;
      const revision = snapshot.revisions.get(path) as string;
      const parts: string[] = [];
      for (let index = 0; index < file.chunks; index++) {
        const text = texts.get(chunkId(path, revision, index));
        if (text === undefined) break;
        parts.push(text);
      }
      pages.set(path, parts.length === file.chunks ? parts.join("") : null);
    }
    return pages;
  }

  private accessFilter(snapshot: TreeSnapshot, access: Access): Where | undefined {
    const hidden: string[] = [];
    for (const path of Object.keys(snapshot.tree.files)) {
      if (!isVisibleIn(snapshot, path, access)) hidden.push(path);
    }
    if (hidden.length === 0) return undefined;
    if (hidden.length <= ACCESS_LIST_MAX_PATHS) return pathListWhere("$nin", hidden);
    const visible = visiblePaths(snapshot, access);
    if (visible.length <= ACCESS_LIST_MAX_PATHS) return pathListWhere("$in", visible);
    return accessWhere(access);
  }

  private currentTree(): Promise<TreeSnapshot> {
    return this.snapshot ? Promise.resolve(this.snapshot) : this.reloadTree();
  }

  private reloadTree(): Promise<TreeSnapshot> {
    this.loading ??= this.loadTree().finally(() => {
      this.loading = undefined;
    });
    return this.loading;
  }

  private async loadTree(): Promise<TreeSnapshot> {
    const result = await this.collection.get({ ids: [PATH_TREE_ID], include: ["documents"] });
    if (result.ids.length === 0) {
      throw new PathTreeError(
        this.collection.name,
        `Collection ${this.collection.name} has no path tree (${PATH_TREE_ID}); ingest docs into it first: atrium-docs ingest <dir> --collection ${this.collection.name}`,
        { missing: true },
      );
    }
    const tree = decodePathTree(result.documents[0], this.collection.name);
    const revisions = new Map(Object.entries(tree.files).map(([path, file]) => [path, pageRevision(file)]));
    this.snapshot = { tree, revisions };
    return this.snapshot;
  }
}

function isVisibleIn(snapshot: TreeSnapshot, path: string, access: Access): boolean {
  const file = snapshot.tree.files[path];
  if (!file) return false;
  const groups = file.groups;
  return !groups || groups.length === 0 || groups.some((group) => access.groups.includes(group));
}

function visiblePaths(snapshot: TreeSnapshot, access: Access): string[] {
  return Object.keys(snapshot.tree.files).filter((path) => isVisibleIn(snapshot, path, access));
}

function pathListWhere(operator: "$in" | "$nin", paths: string[]): Where {
  return { page: { [operator]: paths } } as unknown as Where;
}

/** The boolean-key access filter: `{public: true}` or any of the caller's groups (a single clause can't be wrapped in `$or`). */
export function accessWhere(access: Access): Where {
  const clauses: Where[] = [{ [PUBLIC_KEY]: true }];
  for (const group of new Set(access.groups)) clauses.push({ [groupKey(group)]: true });
  return clauses.length === 1 ? (clauses[0] as Where) : { $or: clauses };
}

export function documentFilter(filter: TextFilter): WhereDocument | undefined {
  if (filter.kind === "contains") {
    if (filter.text === "") return undefined;
    return filter.caseInsensitive
      ? { $regex: `(?i)${escapeRegex(filter.text)}` }
      : { $contains: filter.text };
  }
  if (filter.pattern === "") return undefined;
  return { $regex: filter.caseInsensitive ? `(?i)${filter.pattern}` : filter.pattern };
}

/** Escapes the characters Rust's regex syntax treats as meta, so `text` matches literally. */
export function escapeRegex(text: string): string {
  return text.replace(/[\\.+*?()|[\]{}^$#&\-~]/g, "\\$&");
}

function isRejectedFilter(error: unknown): boolean {
  const message = error instanceof Error ? error.message : String(error);
  return /regex|invalid|where document/i.test(message) && !/fetch failed|ECONNREFUSED/i.test(message);
}

/** Reciprocal-rank fusion of ranked chunk lists, one hit per page (its best chunk). */
function fuse(lists: ChunkRow[][], words: string[], limit: number): SearchHit[] {
  const hits = new Map<string, { score: number; text: string; best: number }>();
  for (const list of lists) {
    const seen = new Set<string>();
    list.forEach((item, rank) => {
      if (seen.has(item.page)) return;
      seen.add(item.page);
      const contribution = 1 / (RRF_K + rank + 1);
      const hit = hits.get(item.page);
      if (!hit) hits.set(item.page, { score: contribution, text: item.text, best: contribution });
      else {
        hit.score += contribution;
        if (contribution > hit.best) {
          hit.best = contribution;
          hit.text = item.text;
        }
      }
    });
  }
  return [...hits]
    .sort((a, b) => b[1].score - a[1].score || (a[0] < b[0] ? -1 : 1))
    .slice(0, limit)
    .map(([path, hit]) => ({ path, snippet: snippetOf(hit.text, words), score: hit.score }));
}

function snippetOf(text: string, words: string[]): string {
  const lower = text.toLowerCase();
  const positions = words.map((word) => lower.indexOf(word)).filter((position) => position >= 0);
  const first = positions.length ? Math.min(...positions) : 0;
  const lineStart = text.lastIndexOf("\n", first) + 1;
  return text.slice(lineStart, lineStart + SEARCH_SNIPPET_MAX_CHARS);
}
