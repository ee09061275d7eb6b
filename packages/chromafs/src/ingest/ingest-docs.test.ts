import { createHash } from "node:crypto";
import { rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { type Collection, connectChroma, hashingEmbedding } from "@atrium/chroma";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  FIXTURE_PAGES,
  INGESTED_PATHS,
  startTestChroma,
  type TestChroma,
  writeFixtureCorpus,
} from "../../test/fixtures/ingest-fixtures.js";
import { chunkId, currentChunking, pageRevision } from "../collection-schema/page-revision.js";
import { chunkPage } from "../docs-folder/chunk-page.js";
import { ChromaDocStore } from "../store/chroma/chroma-doc-store.js";
import { PATH_TREE_ID } from "../tree/path-tree.js";
import { decodePathTree } from "../tree/path-tree-codec.js";
import { type IngestProgress, ingestDocs } from "./ingest-docs.js";

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

async function storedTree(collection: Collection) {
  const result = await collection.get({ ids: [PATH_TREE_ID], include: ["documents"] });
  return decodePathTree(result.documents[0], collection.name);
}

async function chunkMetadatas(collection: Collection) {
  const result = await collection.get({ where: { kind: "chunk" }, include: ["metadatas"] });
  return result.metadatas.map((metadata) => metadata as Record<string, unknown>);
}

describe("ingestDocs", () => {
  let chroma: TestChroma;
  let dir: string;
  let groupsFile: string;
  let collection: Collection;
  let otherGroups: string;

  beforeAll(async () => {
    chroma = await startTestChroma("atrium-ingest-");
    ({ dir, groupsFile } = await writeFixtureCorpus(chroma.root));
  });
  afterAll(async () => chroma?.close());

  it("stores every page as chunks plus one path tree", async () => {
    const events: IngestProgress[] = [];
    const summary = await ingestDocs({
      dir,
      groupsFile,
      collection: "fixture",
      url: chroma.server.url,
      onProgress: (event) => events.push(event),
    });
    const client = await connectChroma(chroma.server.url);
    collection = await client.getCollection({ name: "fixture" });
    const tree = await storedTree(collection);
    const totalChunks = Object.values(tree.files).reduce((sum, file) => sum + file.chunks, 0);
    const bytes = INGESTED_PATHS.reduce(
      (sum, path) => sum + Buffer.byteLength(FIXTURE_PAGES[path.slice(1)] ?? ""),
      0,
    );

    expect(summary).toMatchObject({
      collection: "fixture",
      pages: { added: 9, changed: 0, removed: 0, unchanged: 0, total: 9 },
      chunks: { written: totalChunks, deleted: 0, total: totalChunks },
      bytes,
    });
    expect(Object.keys(tree.files).sort()).toEqual(INGESTED_PATHS);
    // The chunks, the tree and the grep index (one record at this size).
    expect(await collection.count()).toBe(totalChunks + 2);
    expect(events.at(-1)).toEqual({ phase: "write", done: totalChunks, total: totalChunks });
    expect(events.some((event) => event.phase === "scan" && event.done === 9 && event.total === 9)).toBe(
      true,
    );
  });

  it("records size, hash, title, groups and laziness per page", async () => {
    const tree = await storedTree(collection);
    const page = (path: string) => FIXTURE_PAGES[path] as string;
    expect(tree.files["/index.mdx"]).toMatchObject({
      size: Buffer.byteLength(page("index.mdx")),
      title: "Welcome",
      chunks: 1,
    });
    expect(tree.files["/index.mdx"]?.hash).toBe(sha256(page("index.mdx")));
    expect(tree.files["/index.mdx"]?.groups).toBeUndefined();
    expect(tree.files["/guides/intro.md"]).toMatchObject({ title: "Getting started", chunks: 1 });
    expect(tree.files["/guides/deploy.mdx"]).toMatchObject({ title: "Deploy", chunks: 1 });
    expect(tree.files["/internal/roadmap.mdx"]?.groups).toEqual(["staff"]);
    expect(tree.files["/internal/handbook.mdx"]?.groups).toBeUndefined();
    expect(tree.files["/enterprise/sso.mdx"]?.groups).toEqual(["enterprise", "staff"]);
    expect(tree.files["/zh/指南.mdx"]).toMatchObject({
      size: Buffer.byteLength(page("zh/指南.mdx")),
      title: "指南",
    });
    expect(tree.files["/docs.json"]).toMatchObject({ title: "docs.json", chunks: 1 });
    expect(tree.files["/big/spec.md"]?.lazy).toBe(true);
    const bigChunks = chunkPage(page("big/spec.md"), { markdown: true });
    expect(tree.files["/big/spec.md"]?.chunks).toBe(bigChunks.length);
    expect(bigChunks.length).toBeGreaterThan(30);
    const bigLines = (await chunkMetadatas(collection))
      .filter((metadata) => metadata.page === "/big/spec.md")
      .sort((a, b) => (a.chunk_index as number) - (b.chunk_index as number))
      .map((metadata) => metadata.line);
    // Each chunk's `line` is where its text starts in the page.
    const pageLines = page("big/spec.md").split("\n");
    expect(bigLines).toHaveLength(bigChunks.length);
    bigChunks.forEach((chunk, index) => {
      const line = bigLines[index] as number;
      expect(pageLines.slice(line - 1, line - 1 + chunk.split("\n").length - 1).join("\n")).toBe(
        chunk.slice(0, -1),
      );
    });
    expect(bigLines[0]).toBe(1);
    expect(bigChunks.every((chunk) => chunk.endsWith("\n") && Buffer.byteLength(chunk) <= 8192)).toBe(true);
    expect(tree.files["/index.mdx"]?.lazy).toBeUndefined();
  });

  it("writes chunk metadata with one boolean access key per group", async () => {
    const metadatas = await chunkMetadatas(collection);
    const sso = metadatas.filter((metadata) => metadata.page === "/enterprise/sso.mdx");
    const index = metadatas.filter((metadata) => metadata.page === "/index.mdx");
    expect(sso.map((metadata) => metadata.chunk_index)).toEqual([0]);
    const ssoRevision = pageRevision(
      {
        hash: sha256(FIXTURE_PAGES["enterprise/sso.mdx"] as string),
        groups: ["enterprise", "staff"],
        title: "SSO",
      },
      currentChunking(),
    );
    expect(sso[0]).toEqual({
      page: "/enterprise/sso.mdx",
      chunk_index: 0,
      line: 1,
      kind: "chunk",
      rev: ssoRevision,
      title: "SSO",
      group_enterprise: true,
      group_staff: true,
    });
    expect(index.every((metadata) => metadata.public === true && !("group_staff" in metadata))).toBe(true);
  });

  it("changes nothing when nothing changed", async () => {
    const summary = await ingestDocs({ dir, groupsFile, collection: "fixture", url: chroma.server.url });
    expect(summary.pages).toEqual({ added: 0, changed: 0, removed: 0, unchanged: 9, total: 9 });
    expect(summary.chunks.written).toBe(0);
    expect(summary.chunks.deleted).toBe(0);
  });

  it("re-ingest adds, rewrites and removes only what changed", async () => {
    await writeFile(join(dir, "guides/intro.md"), "# Getting started\n\nNew install steps.\n");
    await rm(join(dir, "zh/指南.mdx"));
    await writeFile(join(dir, "guides/new.md"), "# New page\n\nFresh.\n");
    const summary = await ingestDocs({ dir, groupsFile, collection: "fixture", url: chroma.server.url });
    expect(summary.pages).toEqual({ added: 1, changed: 1, removed: 1, unchanged: 7, total: 9 });
    expect(summary.chunks.written).toBe(2);
    expect(summary.chunks.deleted).toBe(2);

    const tree = await storedTree(collection);
    expect(tree.files["/zh/指南.mdx"]).toBeUndefined();
    const pages = new Set((await chunkMetadatas(collection)).map((metadata) => metadata.page));
    expect(pages.has("/zh/指南.mdx")).toBe(false);
    const store = await ChromaDocStore.open({ url: chroma.server.url, collection: "fixture" });
    await store.readTree();
    const read = await store.readPages(["/guides/intro.md", "/guides/new.md"], { groups: [] });
    expect(read.get("/guides/intro.md")).toBe("# Getting started\n\nNew install steps.\n");
    expect(read.get("/guides/new.md")).toBe("# New page\n\nFresh.\n");
  });

  it("rewrites a page whose groups changed, so its chunks carry the new access keys", async () => {
    otherGroups = join(chroma.root, "other-groups.json");
    await writeFile(otherGroups, JSON.stringify({ "internal/**": ["staff", "ops"] }));
    const summary = await ingestDocs({
      dir,
      groupsFile: otherGroups,
      collection: "fixture",
      url: chroma.server.url,
    });
    expect(summary.pages).toMatchObject({ changed: 1, unchanged: 8 });
    const roadmap = (await chunkMetadatas(collection)).filter(
      (metadata) => metadata.page === "/internal/roadmap.mdx",
    );
    expect(roadmap.length).toBeGreaterThan(0);
    expect(roadmap.every((metadata) => metadata.group_ops === true && metadata.group_staff === true)).toBe(
      true,
    );
  });

  it("readers ignore chunks a crashed ingest left behind, and the next ingest deletes them", async () => {
    const embedding = hashingEmbedding();
    const [vector] = await embedding.embed(["x"]);
    await collection.upsert({
      ids: [chunkId("/index.mdx", "deadbeefdeadbeef", 0)],
      documents: ["half-written new version\n"],
      metadatas: [
        { page: "/index.mdx", chunk_index: 0, kind: "chunk", rev: "deadbeefdeadbeef", public: true },
      ],
      embeddings: [vector as number[]],
    });
    const store = await ChromaDocStore.open({ url: chroma.server.url, collection: "fixture" });
    await store.readTree();
    expect((await store.readPages(["/index.mdx"], { groups: [] })).get("/index.mdx")).toBe(
      FIXTURE_PAGES["index.mdx"],
    );
    const leftover = { kind: "contains", text: "half-written new version", caseInsensitive: false } as const;
    expect(await store.findPages(leftover, { groups: [] })).toEqual([]);
    expect(await store.findPages(leftover, { groups: [] })).toEqual([]);
    const hits = await store.search("half-written new version", { groups: [] }, 50);
    expect(hits.every((hit) => !hit.snippet.includes("half-written"))).toBe(true);
    const summary = await ingestDocs({
      dir,
      groupsFile: otherGroups,
      collection: "fixture",
      url: chroma.server.url,
    });
    expect(summary.chunks).toMatchObject({ written: 0, deleted: 1 });
  });
});

describe("ingestDocs interrupted", () => {
  let chroma: TestChroma;
  beforeAll(async () => {
    chroma = await startTestChroma("atrium-ingest-crash-");
  });
  afterAll(async () => chroma?.close());

  it("a failure after the new chunks are written leaves the old tree reading the old pages", async () => {
    const { dir } = await writeFixtureCorpus(chroma.root);
    await ingestDocs({ dir, collection: "crashy", url: chroma.server.url });
    await writeFile(join(dir, "index.mdx"), "# Rewritten\n");
    const hashing = hashingEmbedding();
    // Same vectors as the default, but it dies when ingest asks for the tree's vector, which
    // happens after every chunk is written and before the tree is.
    const dying = {
      ...hashing,
      embed: async (texts: string[]) => {
        if (texts.length === 1 && texts[0] === "path tree") throw new Error("killed before the tree");
        return hashing.embed(texts);
      },
    };
    await expect(
      ingestDocs({ dir, collection: "crashy", url: chroma.server.url, embedding: dying }),
    ).rejects.toThrow("killed before the tree");
    const store = await ChromaDocStore.open({ url: chroma.server.url, collection: "crashy" });
    const pages = await store.readPages(["/index.mdx"], { groups: [] });
    expect(pages.get("/index.mdx")).toBe(FIXTURE_PAGES["index.mdx"]);

    const summary = await ingestDocs({ dir, collection: "crashy", url: chroma.server.url });
    expect(summary.pages).toMatchObject({ changed: 1, unchanged: 8 });
    expect(summary.chunks).toMatchObject({ written: 1, deleted: 1 });
    expect((await store.readPages(["/index.mdx"], { groups: [] })).get("/index.mdx")).toBe("# Rewritten\n");
  });

  it("a failed first ingest leaves no collection behind, so the next one may pick any embedding", async () => {
    const { dir } = await writeFixtureCorpus(chroma.root, "first");
    const down = {
      ...hashingEmbedding({ dimensions: 64 }),
      id: "openai-compatible:http://127.0.0.1:9/v1#down",
      embed: async (): Promise<number[][]> => {
        throw new Error("Cannot connect to API: ECONNREFUSED 127.0.0.1:9");
      },
    };
    await expect(
      ingestDocs({ dir, collection: "first", url: chroma.server.url, embedding: down }),
    ).rejects.toThrow("Cannot connect to API: ECONNREFUSED 127.0.0.1:9");
    const client = await connectChroma(chroma.server.url);
    expect((await client.listCollections()).map((collection) => collection.name)).not.toContain("first");
    const summary = await ingestDocs({ dir, collection: "first", url: chroma.server.url });
    expect(summary.pages).toMatchObject({ added: 9, changed: 0, unchanged: 0 });
  });

  it("a rebuild whose embedding can't answer drops nothing", async () => {
    const { dir } = await writeFixtureCorpus(chroma.root, "kept");
    await ingestDocs({ dir, collection: "kept", url: chroma.server.url });
    const down = {
      ...hashingEmbedding(),
      id: "openai:text-embedding-3-small",
      embed: async (): Promise<number[][]> => {
        throw new Error("Incorrect API key provided");
      },
    };
    await expect(
      ingestDocs({ dir, collection: "kept", url: chroma.server.url, embedding: down, rebuild: true }),
    ).rejects.toThrow("Incorrect API key provided");
    const store = await ChromaDocStore.open({ url: chroma.server.url, collection: "kept" });
    expect((await store.readPages(["/index.mdx"], { groups: [] })).get("/index.mdx")).toBe(
      FIXTURE_PAGES["index.mdx"],
    );
  });

  it("refuses an embedding that returns the wrong number of vectors", async () => {
    const { dir } = await writeFixtureCorpus(chroma.root, "short");
    const hashing = hashingEmbedding();
    const short = {
      ...hashing,
      embed: async (texts: string[]) => (await hashing.embed(texts)).slice(1),
    };
    await expect(
      ingestDocs({ dir, collection: "short", url: chroma.server.url, embedding: short }),
    ).rejects.toThrow("Embedding hashing-v1-384 returned 44 vectors for 45 texts");
  });
});

describe("ingestDocs input errors", () => {
  let chroma: TestChroma;
  beforeAll(async () => {
    chroma = await startTestChroma("atrium-ingest-errors-");
  });
  afterAll(async () => chroma?.close());

  it("validates the collection name", async () => {
    const { dir } = await writeFixtureCorpus(chroma.root, "names");
    await expect(ingestDocs({ dir, collection: "a/b", url: chroma.server.url })).rejects.toThrow(
      'Collection name "a/b" is invalid: use 3–512 characters of letters, digits, . _ -',
    );
  });

  it("names a missing docs dir and an empty one", async () => {
    const missing = join(chroma.root, "missing");
    await expect(ingestDocs({ dir: missing, collection: "docs", url: chroma.server.url })).rejects.toThrow(
      `Docs dir ${missing} can't be read (ENOENT)`,
    );
    const empty = join(chroma.root, "empty");
    await writeFile(join(chroma.root, "placeholder"), "");
    await import("node:fs/promises").then((fs) => fs.mkdir(empty));
    await expect(ingestDocs({ dir: empty, collection: "docs", url: chroma.server.url })).rejects.toThrow(
      `No .md or .mdx pages found in ${empty}`,
    );
  });

  it("refuses invalid UTF-8, bad groups and a different embedding", async () => {
    const { dir } = await writeFixtureCorpus(chroma.root, "bad");
    await writeFile(join(dir, "broken.md"), Buffer.from([0x23, 0x20, 0xff, 0xfe, 0x0a]));
    await expect(ingestDocs({ dir, collection: "bad-docs", url: chroma.server.url })).rejects.toThrow(
      `${join(dir, "broken.md")} is not valid UTF-8`,
    );
    await writeFile(join(dir, "broken.md"), '---\ngroups: ["bad name"]\n---\n');
    await expect(ingestDocs({ dir, collection: "bad-docs", url: chroma.server.url })).rejects.toThrow(
      '/broken.md: group name "bad name" is invalid',
    );
    await rm(join(dir, "broken.md"));
    await ingestDocs({ dir, collection: "bad-docs", url: chroma.server.url });
    await expect(
      ingestDocs({
        dir,
        collection: "bad-docs",
        url: chroma.server.url,
        embedding: hashingEmbedding({ dimensions: 64 }),
      }),
    ).rejects.toThrow("Collection bad-docs holds vectors from embedding hashing-v1-384, not hashing-v1-64");
    const rebuilt = await ingestDocs({
      dir,
      collection: "bad-docs",
      url: chroma.server.url,
      embedding: hashingEmbedding({ dimensions: 64 }),
      rebuild: true,
    });
    expect(rebuilt.pages.added).toBe(9);
  });

  it("names an unreadable groups file", async () => {
    const { dir } = await writeFixtureCorpus(chroma.root, "groups");
    const file = join(chroma.root, "groups-bad.json");
    await writeFile(file, '{"internal/**": "not-a-list"');
    await expect(
      ingestDocs({ dir, collection: "docs", url: chroma.server.url, groupsFile: file }),
    ).rejects.toThrow(`Groups file ${file} could not be read as JSON`);
  });
});
