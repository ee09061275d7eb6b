import { gunzipSync, gzipSync } from "node:zlib";
import { type Collection, connectChroma, hashingEmbedding } from "@atrium/chroma";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  FIXTURE_PAGES,
  INGESTED_PATHS,
  SECRET_LINE,
  startTestChroma,
  type TestChroma,
  writeFixtureCorpus,
} from "../../test/fixtures/ingest-fixtures.js";
import { accessMetadata } from "../collection-schema/access-keys.js";
import { EMBEDDING_METADATA_KEY, TREE_DIGEST_METADATA_KEY } from "../collection-schema/docs-collection.js";
import { chunkId, pageRevision } from "../collection-schema/page-revision.js";
import { loadGroupRules } from "../docs-folder/access-groups.js";
import { chunkPage } from "../docs-folder/chunk-page.js";
import { readPage } from "../docs-folder/read-page.js";
import { walkDocs } from "../docs-folder/walk-docs.js";
import { StorageFormatError } from "../errors.js";
import { digestOfTree } from "../grep/index/index-tree.js";
import { openDocsSession } from "../session/docs-session.js";
import { ChromaDocStore } from "../store/chroma/chroma-doc-store.js";
import { PATH_TREE_ID, type PathTreeFile, type StoredPathTree } from "../tree/path-tree.js";
import { format1Chunking } from "../tree/path-tree-migrations.js";
import { type IngestOptions, ingestDocs } from "./ingest-docs.js";

const STAFF = { groups: ["staff", "enterprise"] };
const SECRET = { kind: "contains", text: SECRET_LINE, caseInsensitive: false } as const;
const CURRENT_CHUNKING = { chunker: 2, maxBytes: 8192, mergeBytes: 4096 };
const newerMessage = (collection: string, found: number) =>
  `Collection ${collection} was written by a newer @atrium/chromafs (format ${found}, this reads up to 2): ` +
  `upgrade the package or re-ingest with this version (atrium-docs ingest <dir> --collection ${collection} --rebuild)`;

describe("stored format versions, with a real Chroma", () => {
  let chroma: TestChroma;
  let dir: string;
  let groupsFile: string;

  beforeAll(async () => {
    chroma = await startTestChroma("atrium-format-");
    ({ dir, groupsFile } = await writeFixtureCorpus(chroma.root));
  });
  afterAll(async () => chroma?.close());

  const ingest = (collection: string, options: Partial<IngestOptions> = {}) =>
    ingestDocs({ dir, collection, url: chroma.server.url, ...options } as IngestOptions);
  const raw = async (name: string): Promise<Collection> =>
    (await connectChroma(chroma.server.url)).getCollection({ name });
  const open = (collection: string) => ChromaDocStore.open({ url: chroma.server.url, collection });

  async function rawTree(name: string): Promise<Record<string, unknown>> {
    const result = await (await raw(name)).get({ ids: [PATH_TREE_ID], include: ["documents"] });
    return JSON.parse(gunzipSync(Buffer.from(result.documents[0] as string, "base64")).toString("utf8"));
  }

  async function writeRawTree(name: string, tree: unknown): Promise<void> {
    const [vector] = await hashingEmbedding().embed(["path tree"]);
    await (await raw(name)).update({
      ids: [PATH_TREE_ID],
      documents: [gzipSync(Buffer.from(JSON.stringify(tree))).toString("base64")],
      embeddings: [vector as number[]],
    });
  }

  async function expectAllPagesReadBack(store: ChromaDocStore): Promise<void> {
    const pages = await store.readPages(INGESTED_PATHS, STAFF);
    expect([...pages.keys()].sort()).toEqual(INGESTED_PATHS);
    for (const path of INGESTED_PATHS) expect(pages.get(path)).toBe(FIXTURE_PAGES[path.slice(1)]);
  }

  it("writes the current format in the collection metadata and the tree, and reads it back", async () => {
    await ingest("current", { groupsFile });
    const stored = await rawTree("current");
    expect((await raw("current")).metadata).toEqual({
      [EMBEDDING_METADATA_KEY]: hashingEmbedding().id,
      atrium_format: 2,
      [TREE_DIGEST_METADATA_KEY]: digestOfTree(stored as unknown as StoredPathTree),
    });
    expect(Object.keys(stored).sort()).toEqual(["chunking", "files", "groupRules", "version"]);
    expect(stored).toMatchObject({
      version: 2,
      chunking: CURRENT_CHUNKING,
      groupRules: { "internal/**": ["staff"] },
    });
    const store = await open("current");
    expect(await store.readTree()).toEqual(stored);
    await expectAllPagesReadBack(store);
    const chunks = await store.findChunks(SECRET, STAFF);
    expect(chunks?.get("/internal/roadmap.mdx")?.map((chunk) => chunk.line)).toEqual([1]);
    // Re-ingesting an unchanged current collection rewrites nothing.
    expect((await ingest("current")).pages).toMatchObject({ changed: 0, unchanged: 9 });
  });

  it("refuses a collection whose metadata records a newer format, in the store and in ingest", async () => {
    await ingest("newer-meta", { groupsFile });
    const collection = await raw("newer-meta");
    await collection.modify({ metadata: { ...collection.metadata, atrium_format: 3 } });

    const refusal = await open("newer-meta").catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(StorageFormatError);
    expect(refusal).toMatchObject({ code: "CONFIG", found: 3, supported: 2, collection: "newer-meta" });
    expect((refusal as Error).message).toBe(newerMessage("newer-meta", 3));
    await expect(ingest("newer-meta")).rejects.toThrow(newerMessage("newer-meta", 3));
    expect((await raw("newer-meta")).metadata?.atrium_format).toBe(3);

    // Re-ingesting with this version (a rebuild) makes it a collection this version reads.
    const rebuilt = await ingest("newer-meta", { rebuild: true, groupsFile });
    expect(rebuilt.pages).toMatchObject({ added: 9, total: 9 });
    expect((await raw("newer-meta")).metadata?.atrium_format).toBe(2);
    await expectAllPagesReadBack(await open("newer-meta"));
  });

  it("refuses a tree of a newer format even when the metadata doesn't say so", async () => {
    await ingest("newer-tree", { groupsFile });
    await writeRawTree("newer-tree", { ...(await rawTree("newer-tree")), version: 7, shards: 4 });

    const store = await open("newer-tree");
    await expect(store.readTree()).rejects.toThrow(newerMessage("newer-tree", 7));
    await expect(store.readPages(["/index.mdx"], STAFF)).rejects.toBeInstanceOf(StorageFormatError);
    await expect(ingest("newer-tree")).rejects.toThrow(
      `${newerMessage("newer-tree", 7)}. Ingest can't tell what changed; run it with --rebuild`,
    );
    // Its groups mapping can't be trusted either: a rebuild needs it restated.
    await expect(ingest("newer-tree", { rebuild: true })).rejects.toThrow(
      `${newerMessage("newer-tree", 7)}. Its groups mapping can't be read`,
    );
    await ingest("newer-tree", { rebuild: true, groupsFile });
    await expectAllPagesReadBack(await open("newer-tree"));
  });

  /**
   * A collection exactly as the first ingests wrote it (format 1, chunker 1): no format in the
   * collection metadata, a `version: 1` tree without `groupRules` or `chunking`, and chunks
   * without `line` under chunker-1 revisions.
   */
  async function writeFormat1Collection(name: string): Promise<number> {
    const client = await connectChroma(chroma.server.url);
    const embedding = hashingEmbedding();
    const collection = await client.createCollection({
      name,
      embeddingFunction: null,
      configuration: { hnsw: { space: "cosine" } },
      metadata: { [EMBEDDING_METADATA_KEY]: embedding.id },
    });
    const rules = await loadGroupRules(groupsFile);
    const files: Record<string, PathTreeFile> = {};
    const ids: string[] = [];
    const documents: string[] = [];
    const metadatas: Record<string, string | number | boolean>[] = [];
    for (const doc of await walkDocs(dir)) {
      const page = await readPage(doc, rules);
      const chunks = chunkPage(page.text, { markdown: doc.kind === "markdown" });
      const entry = { ...page.entry, chunks: chunks.length };
      files[doc.page] = entry;
      const revision = pageRevision(entry, format1Chunking(1));
      chunks.forEach((text, index) => {
        ids.push(chunkId(doc.page, revision, index));
        documents.push(text);
        metadatas.push({
          page: doc.page,
          chunk_index: index,
          kind: "chunk",
          rev: revision,
          ...accessMetadata(entry.groups ?? []),
          ...(entry.title ? { title: entry.title } : {}),
        });
      });
    }
    await collection.add({ ids, documents, metadatas, embeddings: await embedding.embed(documents) });
    const [vector] = await embedding.embed(["path tree"]);
    await collection.add({
      ids: [PATH_TREE_ID],
      documents: [gzipSync(Buffer.from(JSON.stringify({ version: 1, files }))).toString("base64")],
      metadatas: [{ kind: "tree" }],
      embeddings: [vector as number[]],
    });
    return ids.length;
  }

  it("reads a format-1 collection of chunker-1 chunks, and a re-ingest migrates it to the current format", async () => {
    const oldChunks = await writeFormat1Collection("format1");
    const store = await open("format1");
    const tree = await store.readTree();
    expect(tree.version).toBe(2);
    expect(tree.chunking).toEqual({ chunker: 1, maxBytes: 8192, mergeBytes: 4096 });
    expect(tree.groupRules).toBeUndefined();
    await expectAllPagesReadBack(store);
    // Its chunks don't say where they start: grep reads whole pages, with the same output.
    expect(await store.findChunks(SECRET, STAFF)).toBeNull();
    expect(await store.findPages(SECRET, STAFF)).toEqual(["/internal/roadmap.mdx"]);
    expect(await store.findPages(SECRET, { groups: [] })).toEqual([]);
    const session = await openDocsSession({ store, groups: ["staff"] });
    expect(await session.exec(`grep -rn '${SECRET_LINE}' /`)).toMatchObject({
      stdout: `/internal/roadmap.mdx:7:${SECRET_LINE}\n`,
      exitCode: 0,
    });
    await session.close();

    // The tree doesn't hold the groups mapping, so ingest wants it restated (stored-groups.ts).
    const migrated = await ingest("format1", { groupsFile });
    expect(migrated.pages).toMatchObject({ changed: 9, unchanged: 0, total: 9 });
    expect(migrated.chunks.deleted).toBe(oldChunks);
    expect((await raw("format1")).metadata).toEqual({
      [EMBEDDING_METADATA_KEY]: hashingEmbedding().id,
      atrium_format: 2,
      [TREE_DIGEST_METADATA_KEY]: digestOfTree((await rawTree("format1")) as unknown as StoredPathTree),
    });
    expect(await rawTree("format1")).toMatchObject({ version: 2, chunking: CURRENT_CHUNKING });
    const fresh = await open("format1");
    await expectAllPagesReadBack(fresh);
    const chunks = await fresh.findChunks(SECRET, STAFF);
    expect(chunks?.get("/internal/roadmap.mdx")?.map((chunk) => chunk.line)).toEqual([1]);
  });
});
