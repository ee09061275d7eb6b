import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { connectChroma } from "@atrium/chroma";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  startTestChroma,
  type TestChroma,
  writeFixtureCorpus,
} from "../../../test/fixtures/ingest-fixtures.js";
import { chunkId, pageRevision } from "../../collection-schema/page-revision.js";
import type { Access, PageChunk, TextFilter } from "../../doc-store/doc-store.js";
import { ingestDocs } from "../../ingest/ingest-docs.js";
import { ChromaDocStore } from "../../store/chroma/chroma-doc-store.js";
import type { ChunkingRecord, PathTreeFile } from "../../tree/path-tree.js";
import { GREP_INDEX_ID, readStoredGrepIndex } from "./stored-grep-index.js";

const PUBLIC: Access = { groups: [] };
const STAFF: Access = { groups: ["staff"] };

const literal = (text: string, caseInsensitive = false): TextFilter => ({
  kind: "contains",
  text,
  caseInsensitive,
});

/** Filters whose answers must be the same from the grep index as from the server's text query. */
const FILTERS: TextFilter[] = [
  literal("custom domain"),
  literal("CUSTOM DOMAIN", true),
  literal("Custom"),
  literal("SECRET-PHRASE-7431"),
  literal("secret-phrase", true),
  literal("SAML"),
  literal("saml", true),
  literal("配置自定义"),
  literal("ünïcödé", true),
  literal("`npm i -g mint`"),
  literal("operation 5999:"),
  literal("widget list page 12"),
  literal("e list p"),
  literal("not here anywhere"),
  literal("--"),
];

describe("the grep index (a store narrows literals without a text query on the server)", () => {
  let chroma: TestChroma;
  let dir: string;
  let groupsFile: string;
  let indexed: ChromaDocStore;
  let unindexed: ChromaDocStore;

  beforeAll(async () => {
    chroma = await startTestChroma("atrium-grep-index-");
    ({ dir, groupsFile } = await writeFixtureCorpus(chroma.root));
    await ingestDocs({ dir, groupsFile, collection: "indexed", url: chroma.server.url });
    await ingestDocs({ dir, groupsFile, collection: "unindexed", url: chroma.server.url });
    // A collection ingested before grep indexes existed: the store asks the server instead.
    const client = await connectChroma(chroma.server.url);
    await (await client.getCollection({ name: "unindexed" })).delete({ ids: [GREP_INDEX_ID] });
    indexed = await ChromaDocStore.open({ url: chroma.server.url, collection: "indexed" });
    unindexed = await ChromaDocStore.open({ url: chroma.server.url, collection: "unindexed" });
  });
  afterAll(async () => chroma?.close());

  it("answers findChunks and findPages exactly as the server's text query does, for every caller", async () => {
    for (const access of [PUBLIC, STAFF, { groups: ["enterprise"] }]) {
      for (const filter of FILTERS) {
        const label = `${JSON.stringify(filter)} as ${access.groups.join(",") || "public"}`;
        expect(await indexed.findChunks(filter, access), label).toEqual(
          await unindexed.findChunks(filter, access),
        );
        expect(await indexed.findPages(filter, access), label).toEqual(
          await unindexed.findPages(filter, access),
        );
        const within = ["/guides/deploy.mdx", "/big/spec.md", "/internal/roadmap.mdx"];
        expect(await indexed.findChunks(filter, access, within), label).toEqual(
          await unindexed.findChunks(filter, access, within),
        );
      }
    }
    expect([
      ...((await indexed.findChunks(literal("SECRET-PHRASE-7431"), PUBLIC)) ?? new Map()).keys(),
    ]).toEqual([]);
    expect([
      ...((await indexed.findChunks(literal("SECRET-PHRASE-7431"), STAFF)) ?? new Map()).keys(),
    ]).toEqual(["/internal/roadmap.mdx"]);
  });

  it("narrows a regex by the literals every match holds: the chunks holding one of them", async () => {
    const regex = (pattern: string, literals: string[], caseInsensitive = false): TextFilter => ({
      kind: "regex",
      pattern,
      caseInsensitive,
      literals,
    });
    for (const access of [PUBLIC, STAFF]) {
      // An alternation of literals: exactly the server's answer.
      for (const alternation of [
        regex("SAML|custom domain|SECRET\\x2dPHRASE", ["SAML", "custom domain", "SECRET-PHRASE"]),
        regex("saml|CUSTOM DOMAIN", ["saml", "CUSTOM DOMAIN"], true),
      ]) {
        const label = `${alternation.kind === "regex" && alternation.pattern} as ${access.groups.join(",") || "public"}`;
        expect(await indexed.findChunks(alternation, access), label).toEqual(
          await unindexed.findChunks(alternation, access),
        );
        expect(await indexed.findPages(alternation, access), label).toEqual(
          await unindexed.findPages(alternation, access),
        );
      }
      // A regex narrower than its literal: the chunks holding the literal, which grep narrows.
      expect(await indexed.findChunks(regex("Custom d[a-z]+ setup", ["Custom d"]), access)).toEqual(
        await unindexed.findChunks(literal("Custom d"), access),
      );
    }
    const either = regex("SAML|custom domain", ["SAML", "custom domain"]);
    expect(await indexed.findPages(either, PUBLIC)).toEqual(["/guides/deploy.mdx"]);
    expect(await indexed.findPages(either, STAFF)).toEqual(["/enterprise/sso.mdx", "/guides/deploy.mdx"]);
  });

  it("ignores an index built for another tree, or a damaged one, and still answers right", async () => {
    const client = await connectChroma(chroma.server.url);
    await ingestDocs({ dir, groupsFile, collection: "stale", url: chroma.server.url });
    const collection = await client.getCollection({ name: "stale" });
    const before = await collection.get({
      ids: [GREP_INDEX_ID],
      include: ["documents", "metadatas", "embeddings"],
    });
    await writeFile(
      join(dir, "guides/intro.md"),
      "# Getting started\n\nA freshly written marker: zebra-crossing.\n",
    );
    await ingestDocs({ dir, groupsFile, collection: "stale", url: chroma.server.url });
    expect(await readStoredGrepIndex(collection)).not.toBe(before.documents[0]);
    // The index of the previous ingest put back, as a crash between index and tree could leave it.
    await collection.upsert({
      ids: [GREP_INDEX_ID],
      documents: [before.documents[0] as string],
      metadatas: [before.metadatas[0] as Record<string, string | number>],
      embeddings: [before.embeddings[0] as number[]],
    });
    const store = await ChromaDocStore.open({ url: chroma.server.url, collection: "stale" });
    expect([...((await store.findChunks(literal("zebra-crossing"), PUBLIC)) ?? new Map()).keys()]).toEqual([
      "/guides/intro.md",
    ]);
    await collection.upsert({
      ids: [GREP_INDEX_ID],
      documents: ["not an index"],
      metadatas: [before.metadatas[0] as Record<string, string | number>],
      embeddings: [before.embeddings[0] as number[]],
    });
    const damaged = await ChromaDocStore.open({ url: chroma.server.url, collection: "stale" });
    expect(await damaged.findPages(literal("zebra"), PUBLIC)).toEqual(["/guides/intro.md"]);
  });

  it("reads the chunks of a literal from its cache the second time, after one small read of the tree's digest", async () => {
    const own = await startTestChroma("atrium-grep-index-cache-");
    try {
      const corpus = await writeFixtureCorpus(own.root);
      await ingestDocs({ ...corpus, collection: "docs", url: own.server.url });
      const store = await ChromaDocStore.open({ url: own.server.url, collection: "docs", treeRecheckMs: 0 });
      const filter = literal("custom domain", true);
      const first = await store.findChunks(filter, PUBLIC);
      const [path, chunks] = [...(first ?? new Map<string, PageChunk[]>())][0] as [string, PageChunk[]];
      expect(path).toBe("/guides/deploy.mdx");
      // The chunk's text changed behind the store's back (no ingest, so the tree is the same):
      // a text query would see the change, the cache does not.
      const collection = await (await connectChroma(own.server.url)).getCollection({ name: "docs" });
      const tree = await store.readTree();
      const id = chunkId(
        path,
        pageRevision(tree.files[path] as PathTreeFile, tree.chunking as ChunkingRecord),
        0,
      );
      const stored = await collection.get({ ids: [id], include: ["documents", "metadatas", "embeddings"] });
      await collection.upsert({
        ids: [id],
        documents: ["Custom domain, changed on the server\n"],
        metadatas: [stored.metadatas[0] as Record<string, string | number | boolean>],
        embeddings: [stored.embeddings[0] as number[]],
      });
      expect(await store.findChunks(filter, PUBLIC)).toEqual(first);
      expect(chunks[0]?.text).toContain("Configure a custom domain in the dashboard.");
      const fresh = await ChromaDocStore.open({ url: own.server.url, collection: "docs" });
      expect((await fresh.findChunks(filter, PUBLIC))?.get(path)).toEqual([
        { index: 0, line: 1, text: "Custom domain, changed on the server\n" },
      ]);
      // Without the server the digest can't be read (every command reads it here): an error
      // naming the store, never an answer from a tree that may be stale.
      await own.server.stop();
      await expect(store.findChunks(filter, PUBLIC)).rejects.toThrow(
        `the docs store (Chroma at ${own.server.url}, collection docs) cannot be reached: no Chroma server answers there; try again`,
      );
    } finally {
      await own.close();
    }
  });
});
