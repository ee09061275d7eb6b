import type { AtriumEmbedding, ChromaClient, Collection, Where, WhereDocument } from "@atrium/chroma";
import { AtriumError, rethrowIfFatal } from "@atrium/spec";
import { groupKey, PUBLIC_KEY } from "../ingest/access-groups.js";
import {
  type ChromaTarget,
  defaultEmbedding,
  openDocsCollection,
  resolveClient,
} from "../ingest/docs-collection.js";
import { SEARCH_CANDIDATES, SEARCH_SNIPPET_MAX_CHARS, STORE_PAGES_PER_QUERY } from "../ingest/limits.js";
import { pageRevision } from "../ingest/page-revision.js";
import { PATH_TREE_ID, type PathTree } from "../tree/path-tree.js";
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

const RRF_K = 60;
const QUERY_WORD = /[\p{L}\p{N}_]{2,}/gu;

/**
 * The DocStore over a Chroma collection written by `ingestDocs`. Every query carries the
 * caller's access filter, so a page the caller may not see never leaves the server — not its
 * text, not its path, not a search hit.
 */
export class ChromaDocStore implements DocStore {
  readonly description: string;
  private revisions: Map<string, string> | undefined;

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
    const result = await this.collection.get({ ids: [PATH_TREE_ID], include: ["documents"] });
    if (result.ids.length === 0) {
      throw new PathTreeError(
        this.collection.name,
        `Collection ${this.collection.name} has no path tree (${PATH_TREE_ID}); ingest docs into it first: atrium-docs ingest <dir> --collection ${this.collection.name}`,
        { missing: true },
      );
    }
    const tree = decodePathTree(result.documents[0], this.collection.name);
    this.revisions = new Map(Object.entries(tree.files).map(([path, file]) => [path, pageRevision(file)]));
    return tree;
  }

  async readPages(paths: readonly string[], access: Access): Promise<Map<string, string>> {
    const pages = new Map<string, string>();
    const unique = [...new Set(paths)];
    for (let start = 0; start < unique.length; start += STORE_PAGES_PER_QUERY) {
      const batch = unique.slice(start, start + STORE_PAGES_PER_QUERY);
      const result = await this.collection.get({
        where: and({ page: { $in: batch } }, accessWhere(access)),
        include: ["documents", "metadatas"],
      });
      const byPage = new Map<string, { rev: string; index: number; text: string }[]>();
      result.ids.forEach((_, row) => {
        const metadata = result.metadatas[row];
        const page = String(metadata?.page);
        const list = byPage.get(page) ?? [];
        list.push({
          rev: String(metadata?.rev),
          index: Number(metadata?.chunk_index),
          text: result.documents[row] ?? "",
        });
        byPage.set(page, list);
      });
      for (const [page, chunks] of byPage) pages.set(page, await this.assemble(page, chunks));
    }
    return pages;
  }

  async findPages(filter: TextFilter, access: Access, within?: readonly string[]): Promise<string[]> {
    if (within && within.length === 0) return [];
    const document = documentFilter(filter);
    const pages = new Set<string>();
    const scopes = within ? chunked([...new Set(within)], STORE_PAGES_PER_QUERY) : [undefined];
    for (const scope of scopes) {
      const where = scope ? and({ page: { $in: scope } }, accessWhere(access)) : accessWhere(access);
      const result = await this.getMetadatas(where, document);
      for (const metadata of result) pages.add(String(metadata?.page));
    }
    return [...pages].sort();
  }

  async search(query: string, access: Access, limit: number): Promise<SearchHit[]> {
    const wanted = Math.max(1, Math.min(Math.floor(limit), SEARCH_CANDIDATES));
    const where = accessWhere(access);
    const [vector] = await (this.embedding.generateForQueries ?? this.embedding.generate)([query]);
    const semantic = await this.collection.query({
      queryEmbeddings: vector ? [vector] : [],
      nResults: SEARCH_CANDIDATES,
      where,
      include: ["documents", "metadatas"],
    });
    const ranked: { page: string; text: string }[][] = [
      (semantic.ids[0] ?? []).map((_, row) => ({
        page: String(semantic.metadatas[0]?.[row]?.page),
        text: semantic.documents[0]?.[row] ?? "",
      })),
    ];
    const words = [...new Set(query.toLowerCase().match(QUERY_WORD) ?? [])].slice(0, 8);
    if (words.length > 0) ranked.push(await this.keywordPass(words, where));
    return fuse(ranked, words, wanted);
  }

  /** Chunks containing any query word (case-insensitive), best first by distinct words present. */
  private async keywordPass(words: string[], where: Where): Promise<{ page: string; text: string }[]> {
    const result = await this.collection.get({
      where,
      whereDocument: { $regex: `(?i)(?:${words.map(escapeRegex).join("|")})` },
      include: ["documents", "metadatas"],
      limit: SEARCH_CANDIDATES * 4,
    });
    const scored = result.ids.map((_, row) => {
      const text = result.documents[row] ?? "";
      const lower = text.toLowerCase();
      const present = words.filter((word) => lower.includes(word)).length;
      return { page: String(result.metadatas[row]?.page), text, present };
    });
    return scored.sort((a, b) => b.present - a.present).slice(0, SEARCH_CANDIDATES);
  }

  private async getMetadatas(where: Where, document: WhereDocument | undefined) {
    try {
      const result = await this.collection.get({ where, whereDocument: document, include: ["metadatas"] });
      return result.metadatas;
    } catch (error) {
      rethrowIfFatal(error);
      // A pattern the server's regex engine rejects can't narrow anything; every visible page
      // is then a (correct) superset of the matches, and grep itself decides.
      if (document && isRejectedFilter(error)) {
        return (await this.collection.get({ where, include: ["metadatas"] })).metadatas;
      }
      throw error;
    }
  }

  private async assemble(
    page: string,
    chunks: { rev: string; index: number; text: string }[],
  ): Promise<string> {
    let expected = this.revisions?.get(page);
    if (!expected || !chunks.some((chunk) => chunk.rev === expected)) {
      await this.readTree();
      expected = this.revisions?.get(page);
    }
    const current = chunks.filter((chunk) => chunk.rev === expected).sort((a, b) => a.index - b.index);
    const complete = current.length > 0 && current.every((chunk, position) => chunk.index === position);
    if (!complete) {
      throw new DocStoreError(
        `${this.description}: the chunks of ${page} are missing or incomplete; re-run ingest for this collection`,
      );
    }
    return current.map((chunk) => chunk.text).join("");
  }
}

/** `{public: true}` or any of the caller's groups (a single clause can't be wrapped in `$or`). */
export function accessWhere(access: Access): Where {
  const clauses: Where[] = [{ [PUBLIC_KEY]: true }];
  for (const group of new Set(access.groups)) clauses.push({ [groupKey(group)]: true });
  return clauses.length === 1 ? (clauses[0] as Where) : { $or: clauses };
}

function and(left: Where, right: Where): Where {
  return { $and: [left, right] };
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

function chunked<T>(items: T[], size: number): T[][] {
  const batches: T[][] = [];
  for (let start = 0; start < items.length; start += size) batches.push(items.slice(start, start + size));
  return batches;
}

/** Reciprocal-rank fusion of ranked chunk lists, one hit per page (its best chunk). */
function fuse(lists: { page: string; text: string }[][], words: string[], limit: number): SearchHit[] {
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
