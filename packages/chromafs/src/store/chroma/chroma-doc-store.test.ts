import { writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import { join } from "node:path";
import { ChromaUnreachableError, type Collection, connectChroma, hashingEmbedding } from "@atrium/chroma";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  FIXTURE_PAGES,
  INGESTED_PATHS,
  SECRET_LINE,
  startTestChroma,
  type TestChroma,
  writeFixtureCorpus,
} from "../../../test/fixtures/ingest-fixtures.js";
import type { Access } from "../../doc-store/doc-store.js";
import { PathTreeError } from "../../errors.js";
import { ingestDocs } from "../../ingest/ingest-docs.js";
import { queryWords } from "../../search/query-words.js";
import { PATH_TREE_ID } from "../../tree/path-tree.js";
import { accessWhere } from "./access-where.js";
import { ChromaDocStore } from "./chroma-doc-store.js";
import { documentFilter } from "./chunk-filters.js";

const PUBLIC: Access = { groups: [] };
const STAFF: Access = { groups: ["staff"] };
const HIDDEN_FROM_PUBLIC = ["/enterprise/sso.mdx", "/internal/roadmap.mdx"];
const PUBLIC_PATHS = INGESTED_PATHS.filter((path) => !HIDDEN_FROM_PUBLIC.includes(path));

describe("ChromaDocStore", () => {
  let chroma: TestChroma;
  let store: ChromaDocStore;

  beforeAll(async () => {
    chroma = await startTestChroma("atrium-store-");
    const { dir, groupsFile } = await writeFixtureCorpus(chroma.root);
    await ingestDocs({ dir, groupsFile, collection: "fixture", url: chroma.server.url });
    store = await ChromaDocStore.open({ url: chroma.server.url, collection: "fixture" });
  });
  afterAll(async () => chroma?.close());

  it("describes itself and reads the whole, unpruned tree", async () => {
    expect(store.description).toBe(`chroma ${chroma.server.url} collection fixture`);
    const tree = await store.readTree();
    expect(Object.keys(tree.files).sort()).toEqual(INGESTED_PATHS);
  });

  it("reads visible pages back byte for byte and leaves out invisible and unknown ones", async () => {
    const pages = await store.readPages([...INGESTED_PATHS, "/nope.md"], PUBLIC);
    expect([...pages.keys()].sort()).toEqual(PUBLIC_PATHS);
    for (const path of PUBLIC_PATHS) expect(pages.get(path)).toBe(FIXTURE_PAGES[path.slice(1)]);
    const staff = await store.readPages(HIDDEN_FROM_PUBLIC, STAFF);
    expect([...staff.keys()].sort()).toEqual(HIDDEN_FROM_PUBLIC);
    const enterprise = await store.readPages(HIDDEN_FROM_PUBLIC, { groups: ["enterprise"] });
    expect([...enterprise.keys()]).toEqual(["/enterprise/sso.mdx"]);
  });

  it("answers every visible page (a superset grep itself narrows) for a regex the server refuses", async () => {
    // Look-behind parses in JavaScript but not in Rust's regex: @atrium/chroma classifies the 400.
    expect(
      await store.findPages({ kind: "regex", pattern: "(?<=custom) domain", caseInsensitive: false }, PUBLIC),
    ).toEqual(PUBLIC_PATHS);
  });

  it("narrows by case-sensitive fixed strings, case-insensitive ones and regexes", async () => {
    expect(
      await store.findPages({ kind: "contains", text: "custom domain", caseInsensitive: false }, PUBLIC),
    ).toEqual(["/guides/deploy.mdx"]);
    expect(
      await store.findPages({ kind: "contains", text: "CUSTOM DOMAIN", caseInsensitive: false }, PUBLIC),
    ).toEqual([]);
    expect(
      await store.findPages({ kind: "contains", text: "CUSTOM DOMAIN", caseInsensitive: true }, PUBLIC),
    ).toEqual(["/guides/deploy.mdx"]);
    expect(
      await store.findPages({ kind: "contains", text: "mint dev`.", caseInsensitive: true }, PUBLIC),
    ).toEqual(["/guides/intro.md"]);
    // Chunks start at line starts, so with (?m) a `^` anchors at every line, as in grep.
    expect(
      await store.findPages({ kind: "regex", pattern: "(?m)^Point a CNAME", caseInsensitive: false }, PUBLIC),
    ).toEqual(["/guides/deploy.mdx"]);
    expect(
      await store.findPages(
        { kind: "regex", pattern: "(?m)^# (Custom|Getting)", caseInsensitive: false },
        PUBLIC,
      ),
    ).toEqual(["/guides/deploy.mdx", "/guides/intro.md"]);
    expect(
      await store.findPages({ kind: "contains", text: "自定义域名", caseInsensitive: false }, PUBLIC),
    ).toEqual(["/zh/指南.mdx"]);
    expect(
      await store.findPages({ kind: "regex", pattern: "ünïcödé", caseInsensitive: true }, PUBLIC),
    ).toEqual(["/zh/指南.mdx"]);
  });

  it("restricts the answer to `within`, and answers every visible page for an empty needle", async () => {
    const filter = { kind: "contains", text: "Read", caseInsensitive: true } as const;
    expect(await store.findPages(filter, PUBLIC, ["/index.mdx", "/guides/deploy.mdx"])).toEqual([
      "/index.mdx",
    ]);
    expect(await store.findPages(filter, PUBLIC, [])).toEqual([]);
    const many = [
      ...Array.from({ length: 300 }, (_, index) => `/missing/${index}.md`),
      "/index.mdx",
      "/internal/roadmap.mdx",
    ];
    expect(await store.findPages(filter, PUBLIC, many)).toEqual(["/index.mdx"]);
    expect(
      await store.findPages({ kind: "contains", text: "launch plan", caseInsensitive: false }, PUBLIC, many),
    ).toEqual([]);
    expect(await store.findPages({ kind: "contains", text: "", caseInsensitive: false }, PUBLIC)).toEqual(
      PUBLIC_PATHS,
    );
  });

  it("treats a pattern the server can't compile as matching every visible page (a superset)", async () => {
    expect(await store.findPages({ kind: "regex", pattern: "a(b", caseInsensitive: false }, PUBLIC)).toEqual(
      PUBLIC_PATHS,
    );
  });

  it("searches semantically and by keyword, one hit per page with its best line", async () => {
    const hits = await store.search("configure a custom domain", PUBLIC, 3);
    expect(hits.map((hit) => [hit.path, hit.snippet])).toEqual([
      ["/guides/deploy.mdx", "Configure a custom domain in the dashboard."],
    ]);
    const zh = await store.search("配置自定义域名", PUBLIC, 1);
    expect(zh.map((hit) => hit.path)).toEqual(["/zh/指南.mdx"]);
  });

  it("never lets a hidden page's content out through any method", async () => {
    const secret = "SECRET-PHRASE-7431";
    expect(await store.readPages(["/internal/roadmap.mdx"], PUBLIC)).toEqual(new Map());
    expect(await store.findPages({ kind: "contains", text: secret, caseInsensitive: false }, PUBLIC)).toEqual(
      [],
    );
    expect(await store.findPages({ kind: "contains", text: secret, caseInsensitive: true }, PUBLIC)).toEqual(
      [],
    );
    expect(
      await store.findPages(
        { kind: "regex", pattern: "SECRET-[0-9]+|launch plan", caseInsensitive: false },
        PUBLIC,
      ),
    ).toEqual([]);
    expect(
      await store.findPages({ kind: "contains", text: secret, caseInsensitive: false }, PUBLIC, [
        "/internal/roadmap.mdx",
      ]),
    ).toEqual([]);
    // Only the hidden pages hold words of this line: public gets nothing, staff gets both.
    expect(await store.search(SECRET_LINE, PUBLIC, 50)).toEqual([]);
    expect((await store.search(SECRET_LINE, { groups: ["staff"] }, 50)).map((hit) => hit.path)).toEqual([
      "/internal/roadmap.mdx",
      "/enterprise/sso.mdx",
    ]);
    const all = await store.readPages(PUBLIC_PATHS, PUBLIC);
    for (const text of all.values()) expect(text).not.toContain(secret);
    // The same queries do find it for a member of the group.
    expect(await store.findPages({ kind: "contains", text: secret, caseInsensitive: false }, STAFF)).toEqual([
      "/internal/roadmap.mdx",
    ]);
    expect((await store.search(SECRET_LINE, STAFF, 1))[0]?.path).toBe("/internal/roadmap.mdx");
  });
});

describe("ChromaDocStore after a re-ingest", () => {
  let chroma: TestChroma;
  beforeAll(async () => {
    chroma = await startTestChroma("atrium-store-reingest-");
  });
  afterAll(async () => chroma?.close());

  it("notices a page that became restricted, even with the old tree loaded", async () => {
    const { dir } = await writeFixtureCorpus(chroma.root);
    await ingestDocs({ dir, collection: "moving", url: chroma.server.url });
    // Every command reads the tree digest: grep's cached path notices the re-ingest at once too.
    const store = await ChromaDocStore.open({
      url: chroma.server.url,
      collection: "moving",
      treeRecheckMs: 0,
    });
    const filter = { kind: "contains", text: "CNAME record", caseInsensitive: false } as const;
    expect(await store.findPages(filter, PUBLIC)).toEqual(["/guides/deploy.mdx"]);

    const groupsFile = join(chroma.root, "moving-groups.json");
    await writeFile(groupsFile, JSON.stringify({ "guides/deploy.mdx": ["ops"] }));
    await ingestDocs({ dir, collection: "moving", url: chroma.server.url, groupsFile });

    expect(await store.findPages(filter, PUBLIC)).toEqual([]);
    expect(await store.readPages(["/guides/deploy.mdx"], PUBLIC)).toEqual(new Map());
    expect((await store.search("CNAME record", PUBLIC, 50)).map((hit) => hit.path)).not.toContain(
      "/guides/deploy.mdx",
    );
    expect(await store.findPages(filter, { groups: ["ops"] })).toEqual(["/guides/deploy.mdx"]);
    expect((await store.readTree()).files["/guides/deploy.mdx"]?.groups).toEqual(["ops"]);
  });

  it("answers grep from its caches for at most treeRecheckMs after a re-ingest", async () => {
    const { dir } = await writeFixtureCorpus(join(chroma.root, "window"));
    await ingestDocs({ dir, collection: "window", url: chroma.server.url });
    const store = await ChromaDocStore.open({
      url: chroma.server.url,
      collection: "window",
      treeRecheckMs: 300,
    });
    const filter = { kind: "contains", text: "CNAME record", caseInsensitive: false } as const;
    expect(await store.findPages(filter, PUBLIC)).toEqual(["/guides/deploy.mdx"]);
    const groupsFile = join(chroma.root, "window-groups.json");
    await writeFile(groupsFile, JSON.stringify({ "guides/deploy.mdx": ["ops"] }));
    await ingestDocs({ dir, collection: "window", url: chroma.server.url, groupsFile });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await store.findPages(filter, PUBLIC)).toEqual([]);
    expect(await store.findChunks(filter, PUBLIC)).toEqual(new Map());
    expect(await store.findPages(filter, { groups: ["ops"] })).toEqual(["/guides/deploy.mdx"]);
  });
});

describe("ChromaDocStore failures", () => {
  let chroma: TestChroma;
  let collection: Collection;

  beforeAll(async () => {
    chroma = await startTestChroma("atrium-store-fail-");
    const { dir } = await writeFixtureCorpus(chroma.root);
    await ingestDocs({ dir, collection: "broken", url: chroma.server.url });
    collection = await (await connectChroma(chroma.server.url)).getCollection({ name: "broken" });
  });
  afterAll(async () => chroma?.close());

  it("a corrupt tree is an error naming the collection, never an empty filesystem", async () => {
    const store = await ChromaDocStore.open({ url: chroma.server.url, collection: "broken" });
    const [vector] = await hashingEmbedding().embed(["path tree"]);
    await collection.update({
      ids: [PATH_TREE_ID],
      documents: ["H4sIAAAAAAAAA6tWKkktLlGyUlAqS8wpTgUA"],
      embeddings: [vector as number[]],
    });
    const error = await store.readTree().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(PathTreeError);
    expect(error).toMatchObject({ code: "PARSE", collection: "broken" });
    expect((error as Error).message).toContain("The path tree of collection broken is corrupt (");
  });

  it("a missing tree is an error saying to ingest", async () => {
    const store = await ChromaDocStore.open({ url: chroma.server.url, collection: "broken" });
    await collection.delete({ ids: [PATH_TREE_ID] });
    await expect(store.readTree()).rejects.toThrow(
      `Collection broken has no path tree (${PATH_TREE_ID}); ingest docs into it first: atrium-docs ingest <dir> --collection broken`,
    );
  });

  it("names an unknown collection and an unreachable server", async () => {
    await expect(ChromaDocStore.open({ url: chroma.server.url, collection: "nothing-here" })).rejects.toThrow(
      "Collection nothing-here does not exist on this Chroma server",
    );
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
    const url = `http://127.0.0.1:${(probe.address() as { port: number }).port}`;
    await new Promise((resolve) => probe.close(resolve));
    const error = await ChromaDocStore.open({ url, collection: "docs" }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ChromaUnreachableError);
    expect((error as Error).message).toContain(`No Chroma server answers at ${url}`);
  });
});

describe("query building", () => {
  it("builds the access filter without a one-clause $or", () => {
    expect(accessWhere({ groups: [] })).toEqual({ public: true });
    expect(accessWhere({ groups: ["staff", "staff", "ops"] })).toEqual({
      $or: [{ public: true }, { group_staff: true }, { group_ops: true }],
    });
  });

  it("turns a case-insensitive literal into a (?i) regex of regexLiteral", () => {
    expect(documentFilter({ kind: "contains", text: "x.y", caseInsensitive: true })).toEqual({
      $regex: "(?i)x\\x2ey",
    });
    expect(documentFilter({ kind: "contains", text: "x.y", caseInsensitive: false })).toEqual({
      $contains: "x.y",
    });
    expect(documentFilter({ kind: "regex", pattern: "a|b", caseInsensitive: true })).toEqual({
      $regex: "(?i)a|b",
    });
  });
});

describe("queryWords", () => {
  it("drops function words, keeps content words once, and splits ideographic runs into bigrams", () => {
    expect(queryWords("How do I configure a Custom domain, custom?")).toEqual([
      "configure",
      "custom",
      "domain",
    ]);
    expect(queryWords("how to")).toEqual(["how", "to"]);
    expect(queryWords("配置自定义域名")).toEqual(["配置", "置自", "自定", "定义", "义域", "域名"]);
    expect(queryWords("域名 API")).toEqual(["域名", "api"]);
  });
});
