import { resolve } from "node:path";
import { ConfigError } from "@atrium/spec";
import { isVisible } from "../access/visibility.js";
import type { Access, DocStore, PageChunk, SearchHit, TextFilter } from "../doc-store/doc-store.js";
import type { SearchOptions } from "../doc-store/search-ranking.js";
import { compileTextFilter } from "../doc-store/text-filter-matcher.js";
import { loadGroupRules } from "../docs-folder/access-groups.js";
import { chunkPage, chunkStartLines } from "../docs-folder/chunk-page.js";
import { readPage } from "../docs-folder/read-page.js";
import { walkDocs } from "../docs-folder/walk-docs.js";
import { pageOutline } from "../search/page-outline.js";
import { rankSearch } from "../search/rank-search.js";
import type { SearchChunk, SearchSource } from "../search/search-source.js";
import type { PathTree, PathTreeFile } from "../tree/path-tree.js";
import { STORAGE_FORMAT_VERSION } from "../tree/storage-format.js";

/**
 * A `DocStore` over a plain directory of `.md`/`.mdx` pages (and `docs.json`), with the same tree
 * and access rules as the Chroma store: pages are read with ingest's own walker and page reader
 * (groups from front-matter `groups:` or a groups file). It proves the seam (the oracle suite
 * runs on both) and serves small doc sets without a server. Only paths found by the scan are
 * ever served, so no request can reach outside `root`.
 */
export class LocalFolderStore implements DocStore {
  readonly root: string;
  readonly description: string;
  /** The JSON of globs to groups given at construction, if any. */
  readonly groupsFile: string | undefined;
  private texts = new Map<string, string>();
  private markdown = new Set<string>();
  private chunks = new Map<string, PageChunk[]>();
  /** Every page's chunks lower-cased, and their statistics, for search (built on the first one). */
  private searchIndex: LocalSearchIndex | undefined;
  private tree: PathTree | undefined;

  /**
   * @param root the docs folder
   * @param groupsFile optional JSON mapping of globs to groups (front-matter `groups:` wins)
   */
  constructor(root: string, groupsFile?: string) {
    this.root = resolve(root);
    this.groupsFile = groupsFile;
    this.description = `folder ${this.root}`;
  }

  async readTree(): Promise<PathTree> {
    const docs = await walkDocs(this.root);
    const rules = this.groupsFile ? await loadGroupRules(this.groupsFile) : undefined;
    const pages = await Promise.all(docs.map((doc) => readPage(doc, rules)));
    if (pages.length === 0) {
      throw new ConfigError(`docs folder ${this.root} holds no .md/.mdx pages; point it at your docs`);
    }
    const files: Record<string, PathTreeFile> = {};
    const texts = new Map<string, string>();
    const markdown = new Set<string>();
    for (const { doc, text, entry } of pages) {
      files[doc.page] = { ...entry, chunks: 1 };
      texts.set(doc.page, text);
      if (doc.kind === "markdown") markdown.add(doc.page);
    }
    this.texts = texts;
    this.markdown = markdown;
    this.chunks.clear();
    this.searchIndex = undefined;
    this.tree = { version: STORAGE_FORMAT_VERSION, files };
    return this.tree;
  }

  async readPages(paths: readonly string[], access: Access): Promise<Map<string, string>> {
    const tree = await this.loadedTree();
    const pages = new Map<string, string>();
    for (const path of paths) {
      const file = tree.files[path];
      const text = this.texts.get(path);
      if (file && text !== undefined && isVisible(file, access)) pages.set(path, text);
    }
    return pages;
  }

  async findPages(filter: TextFilter, access: Access, within?: readonly string[]): Promise<string[]> {
    const tree = await this.loadedTree();
    const matches = compileTextFilter(filter);
    const paths = within ?? Object.keys(tree.files);
    return paths.filter((path) => {
      const file = tree.files[path];
      const text = this.texts.get(path);
      return file !== undefined && text !== undefined && isVisible(file, access) && matches(text);
    });
  }

  /** The chunks ingest would store for each page (cut on demand), so grep's sparse reads run here too. */
  async findChunks(
    filter: TextFilter,
    access: Access,
    within?: readonly string[],
  ): Promise<Map<string, PageChunk[]>> {
    const tree = await this.loadedTree();
    const matches = compileTextFilter(filter);
    const found = new Map<string, PageChunk[]>();
    for (const path of within ?? Object.keys(tree.files).sort()) {
      const file = tree.files[path];
      if (file === undefined || !isVisible(file, access)) continue;
      const hits = this.chunksOf(path).filter((chunk) => matches(chunk.text));
      if (hits.length > 0) found.set(path, hits);
    }
    return found;
  }

  private chunksOf(path: string): PageChunk[] {
    let chunks = this.chunks.get(path);
    if (!chunks) {
      const texts = chunkPage(this.texts.get(path) ?? "", { markdown: this.markdown.has(path) });
      const lines = chunkStartLines(texts);
      chunks = texts.map((text, index) => ({ index, line: lines[index] as number, text }));
      this.chunks.set(path, chunks);
    }
    return chunks;
  }

  /**
   * The same ranking as the Chroma store (`rankSearch`) over the chunks ingest would store,
   * without the vector leg (a folder has no embeddings): `vector` answers no hits.
   */
  async search(
    query: string,
    access: Access,
    limit: number,
    options: SearchOptions = {},
  ): Promise<SearchHit[]> {
    const tree = await this.loadedTree();
    const index = this.localSearchIndex(tree);
    const visible = (page: string) => {
      const file = tree.files[page];
      return file !== undefined && isVisible(file, access);
    };
    const source: SearchSource = {
      chunkCount: index.chunks.length,
      averageChunkBytes: index.averageBytes,
      chunksHolding: async (needles) =>
        needles.map((needle) =>
          index.chunks
            .filter((chunk) => visible(chunk.page) && chunk.lower.includes(needle))
            .map((chunk) => chunk.key),
        ),
      readChunks: async (keys) =>
        keys.flatMap((key) => {
          const chunk = index.byKey.get(key);
          return chunk && visible(chunk.page) ? [chunk] : [];
        }),
      outlines: async (pages) =>
        new Map(pages.filter(visible).map((page) => [page, pageOutline(page, this.texts.get(page) ?? "")])),
    };
    return rankSearch(query, source, { ranking: options.ranking, limit, vectorWeight: 0 });
  }

  private localSearchIndex(tree: PathTree): LocalSearchIndex {
    if (this.searchIndex) return this.searchIndex;
    const chunks: (SearchChunk & { lower: string })[] = [];
    let bytes = 0;
    for (const page of Object.keys(tree.files).sort()) {
      for (const chunk of this.chunksOf(page)) {
        chunks.push({
          key: `${page}#${chunk.index}`,
          page,
          index: chunk.index,
          text: chunk.text,
          lower: chunk.text.toLowerCase(),
        });
        bytes += Buffer.byteLength(chunk.text);
      }
    }
    this.searchIndex = {
      chunks,
      byKey: new Map(chunks.map((chunk) => [chunk.key, chunk])),
      averageBytes: chunks.length > 0 ? bytes / chunks.length : 0,
    };
    return this.searchIndex;
  }

  private async loadedTree(): Promise<PathTree> {
    return this.tree ?? (await this.readTree());
  }
}

interface LocalSearchIndex {
  chunks: (SearchChunk & { lower: string })[];
  byKey: Map<string, SearchChunk>;
  averageBytes: number;
}
