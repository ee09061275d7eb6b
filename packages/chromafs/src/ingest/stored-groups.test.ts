import { rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
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
import { openDocsSession } from "../session/docs-session.js";
import { ChromaDocStore } from "../store/chroma/chroma-doc-store.js";
import { PATH_TREE_ID, type PathTree } from "../tree/path-tree.js";
import { decodePathTree } from "../tree/path-tree-codec.js";
import { type IngestOptions, ingestDocs } from "./ingest-docs.js";
import { formatSummary } from "./progress-reporter.js";

const STAFF_MAPPING = { "internal/**": ["staff"] };
const OPS_MAPPING = { "guides/**": ["ops"] };
const ROADMAP = "/internal/roadmap.mdx";
/** Restricted by its own front-matter (`groups: [enterprise, staff]`) whatever the mapping. */
const SSO = "/enterprise/sso.mdx";
const GUIDES = ["/guides/deploy.mdx", "/guides/intro.md"];
const without = (hidden: string[]) => INGESTED_PATHS.filter((path) => !hidden.includes(path));
const PUBLIC = { groups: [] };
const secret = { kind: "contains", text: SECRET_LINE, caseInsensitive: false } as const;

describe("the groups mapping is stored with the collection", () => {
  let chroma: TestChroma;
  let dir: string;
  let files: Record<string, string>;

  beforeAll(async () => {
    chroma = await startTestChroma("atrium-stored-groups-");
    ({ dir } = await writeFixtureCorpus(chroma.root));
    files = {};
    const mappings = { staff: STAFF_MAPPING, ops: OPS_MAPPING, empty: {} };
    for (const [name, mapping] of Object.entries(mappings)) {
      files[name] = join(chroma.root, `${name}.json`);
      await writeFile(files[name] as string, JSON.stringify(mapping));
    }
  });
  afterAll(async () => chroma?.close());

  const ingest = (collection: string, options: Partial<IngestOptions> = {}) =>
    ingestDocs({ dir, collection, url: chroma.server.url, ...options } as IngestOptions);

  async function rawCollection(name: string): Promise<Collection> {
    return (await connectChroma(chroma.server.url)).getCollection({ name });
  }

  async function storedTree(name: string): Promise<PathTree> {
    const result = await (await rawCollection(name)).get({ ids: [PATH_TREE_ID], include: ["documents"] });
    return decodePathTree(result.documents[0], name);
  }

  /**
   * Rewrites a collection's tree as an ingest of storage format 1 wrote it before the mapping
   * was stored: `version: 1`, no `groupRules`, no `chunking` (its chunks are chunker 2's).
   */
  async function makeLegacy(name: string): Promise<void> {
    const { files } = await storedTree(name);
    const legacy = gzipSync(Buffer.from(JSON.stringify({ version: 1, files }))).toString("base64");
    const [vector] = await hashingEmbedding().embed(["path tree"]);
    await (await rawCollection(name)).update({
      ids: [PATH_TREE_ID],
      documents: [legacy],
      embeddings: [vector as number[]],
    });
    expect((await storedTree(name)).groupRules).toBeUndefined();
  }

  async function chunkIds(name: string, page: string): Promise<string[]> {
    const result = await (await rawCollection(name)).get({ where: { page }, include: [] });
    return [...result.ids].sort();
  }

  /**
   * What each kind of user sees, through a fresh store (no cached tree): the files of a session's
   * `find`, and the store's own answers for the secret page, so both layers are checked.
   */
  async function visibility(collection: string) {
    const store = await ChromaDocStore.open({ url: chroma.server.url, collection });
    const seen: Record<string, string[]> = {};
    for (const [user, groups] of Object.entries({ public: [], staff: ["staff"], ops: ["ops"] })) {
      const session = await openDocsSession({ store, groups });
      const found = await session.exec("find / -type f | sort");
      expect(found.stderr).toBe("");
      seen[user] = found.stdout.split("\n").filter(Boolean);
      await session.close();
    }
    const publicSession = await openDocsSession({ store, groups: [] });
    const cat = await publicSession.exec(`cat ${ROADMAP}`);
    await publicSession.close();
    return {
      seen,
      publicCat: cat,
      publicRead: await store.readPages([ROADMAP], PUBLIC),
      publicFind: await store.findPages(secret, PUBLIC),
      staffRead: await store.readPages([ROADMAP], { groups: ["staff"] }),
    };
  }

  const HIDDEN_ROADMAP = {
    publicCat: { stdout: "", stderr: `cat: ${ROADMAP}: No such file or directory\n`, exitCode: 1 },
    publicRead: new Map(),
    publicFind: [],
    staffRead: new Map([[ROADMAP, FIXTURE_PAGES["internal/roadmap.mdx"]]]),
  };
  const PUBLIC_ROADMAP = {
    publicCat: { stdout: FIXTURE_PAGES["internal/roadmap.mdx"], stderr: "", exitCode: 0 },
    publicRead: new Map([[ROADMAP, FIXTURE_PAGES["internal/roadmap.mdx"]]]),
    publicFind: [ROADMAP],
    staffRead: new Map([[ROADMAP, FIXTURE_PAGES["internal/roadmap.mdx"]]]),
  };

  it("an ingest without a groups file keeps the stored mapping; a new file replaces it; clearing drops it", async () => {
    const first = await ingest("acl", { groupsFile: files.staff });
    expect(first.groups).toEqual({ mapping: "groups-file", rules: 1, restricted: 2 });
    expect((await storedTree("acl")).groupRules).toEqual(STAFF_MAPPING);
    expect(await visibility("acl")).toEqual({
      seen: {
        public: without([ROADMAP, SSO]),
        staff: INGESTED_PATHS,
        ops: without([ROADMAP, SSO]),
      },
      ...HIDDEN_ROADMAP,
    });
    const roadmapChunks = await chunkIds("acl", ROADMAP);

    // The defect: this used to rewrite the roadmap as public ("1 changed").
    const kept = await ingest("acl");
    expect(kept.groups).toEqual({ mapping: "stored", rules: 1, restricted: 2 });
    expect(kept.pages).toEqual({ added: 0, changed: 0, removed: 0, unchanged: 9, total: 9 });
    expect(kept.chunks).toMatchObject({ written: 0, deleted: 0 });
    expect(formatSummary(kept).split("\n").slice(1)).toEqual([
      "groups: mapping stored with the collection (1 rule); 2 of 9 pages restricted",
      "",
    ]);
    expect((await storedTree("acl")).groupRules).toEqual(STAFF_MAPPING);
    expect(await chunkIds("acl", ROADMAP)).toEqual(roadmapChunks);
    expect((await visibility("acl")).seen.public).toEqual(without([ROADMAP, SSO]));
    expect(await visibility("acl")).toMatchObject(HIDDEN_ROADMAP);

    // A new file replaces the mapping: the roadmap turns public, the guides turn ops-only, and
    // each page whose groups changed is rewritten under a new revision.
    const replaced = await ingest("acl", { groupsFile: files.ops });
    expect(replaced.groups).toEqual({ mapping: "groups-file", rules: 1, restricted: 3 });
    expect(replaced.pages).toEqual({ added: 0, changed: 3, removed: 0, unchanged: 6, total: 9 });
    expect(replaced.chunks).toMatchObject({ written: 3, deleted: 3 });
    expect((await storedTree("acl")).groupRules).toEqual(OPS_MAPPING);
    const newRoadmapChunks = await chunkIds("acl", ROADMAP);
    expect(newRoadmapChunks).toHaveLength(roadmapChunks.length);
    expect(newRoadmapChunks.some((id) => roadmapChunks.includes(id))).toBe(false);
    expect(await visibility("acl")).toEqual({
      seen: {
        public: without([SSO, ...GUIDES]),
        staff: without(GUIDES),
        ops: without([SSO]),
      },
      ...PUBLIC_ROADMAP,
    });

    const keptOps = await ingest("acl");
    expect(keptOps.groups).toEqual({ mapping: "stored", rules: 1, restricted: 3 });
    expect(keptOps.pages.unchanged).toBe(9);
    expect((await visibility("acl")).seen.public).toEqual(without([SSO, ...GUIDES]));

    // Dropping it: only front-matter groups remain, and it stays dropped.
    const cleared = await ingest("acl", { clearGroups: true });
    expect(cleared.groups).toEqual({ mapping: "cleared", rules: 0, restricted: 1 });
    expect(cleared.pages).toMatchObject({ changed: 2, unchanged: 7 });
    expect(formatSummary(cleared).split("\n")[1]).toBe(
      "groups: mapping cleared; only front-matter groups restrict pages; 1 of 9 pages restricted",
    );
    expect((await storedTree("acl")).groupRules).toEqual({});
    expect((await visibility("acl")).seen).toEqual({
      public: without([SSO]),
      staff: INGESTED_PATHS,
      ops: without([SSO]),
    });
    const none = await ingest("acl");
    expect(none.groups).toEqual({ mapping: "none", rules: 0, restricted: 1 });
    expect(none.pages.unchanged).toBe(9);
    expect(formatSummary(none).split("\n")[1]).toBe("groups: no mapping; 1 of 9 pages restricted");

    // A groups file holding {} drops a stored mapping too.
    await ingest("acl", { groupsFile: files.staff });
    expect(await visibility("acl")).toMatchObject(HIDDEN_ROADMAP);
    const emptied = await ingest("acl", { groupsFile: files.empty });
    expect(emptied.groups).toEqual({ mapping: "cleared", rules: 0, restricted: 1 });
    expect((await storedTree("acl")).groupRules).toEqual({});
    expect(await visibility("acl")).toMatchObject(PUBLIC_ROADMAP);
  });

  it("front-matter groups keep winning over the stored mapping", async () => {
    await ingest("front", { groupsFile: files.staff });
    await writeFile(join(dir, "internal/extra.md"), "---\ngroups: [ops]\n---\n# Extra\n");
    await writeFile(join(dir, "guides/open.md"), "# Open\n");
    try {
      const summary = await ingest("front");
      expect(summary.groups).toEqual({ mapping: "stored", rules: 1, restricted: 3 });
      const tree = await storedTree("front");
      expect(tree.files["/internal/extra.md"]?.groups).toEqual(["ops"]);
      expect(tree.files["/internal/handbook.mdx"]?.groups).toBeUndefined();
      expect(tree.files["/guides/open.md"]?.groups).toBeUndefined();
      const { seen } = await visibility("front");
      const all = [...INGESTED_PATHS, "/guides/open.md", "/internal/extra.md"].sort();
      expect(seen.public).toEqual(all.filter((path) => ![ROADMAP, SSO, "/internal/extra.md"].includes(path)));
      expect(seen.ops).toEqual(all.filter((path) => ![ROADMAP, SSO].includes(path)));
    } finally {
      await rm(join(dir, "internal/extra.md"));
      await rm(join(dir, "guides/open.md"));
    }
  });

  it("--rebuild without a groups file keeps the stored mapping", async () => {
    await ingest("rebuilt", { groupsFile: files.staff });
    const summary = await ingest("rebuilt", { rebuild: true });
    expect(summary.pages).toMatchObject({ added: 9, unchanged: 0 });
    expect(summary.groups).toEqual({ mapping: "stored", rules: 1, restricted: 2 });
    expect((await storedTree("rebuilt")).groupRules).toEqual(STAFF_MAPPING);
    expect(await visibility("rebuilt")).toMatchObject(HIDDEN_ROADMAP);

    // Switching embeddings on rebuild still works, and still keeps the mapping.
    const switched = await ingest("rebuilt", {
      rebuild: true,
      embedding: hashingEmbedding({ dimensions: 64 }),
    });
    expect(switched.groups).toEqual({ mapping: "stored", rules: 1, restricted: 2 });
  });

  it("rebuilding over a corrupt tree needs a groups file or an explicit clear, and drops nothing first", async () => {
    await ingest("corrupt", { groupsFile: files.staff });
    const collection = await rawCollection("corrupt");
    const before = await collection.count();
    const [vector] = await hashingEmbedding().embed(["path tree"]);
    await collection.update({ ids: [PATH_TREE_ID], documents: ["%%%"], embeddings: [vector as number[]] });
    await expect(ingest("corrupt", { rebuild: true })).rejects.toThrow(
      "The path tree of collection corrupt is corrupt (not gzip+base64: ",
    );
    await expect(ingest("corrupt", { rebuild: true })).rejects.toThrow(
      "Its groups mapping can't be read, and a rebuild without one could make restricted pages public; pass --groups-file <file> with --rebuild (or --clear-groups if no mapping should apply)",
    );
    expect(await collection.count()).toBe(before);
    const rebuilt = await ingest("corrupt", { rebuild: true, groupsFile: files.staff });
    expect(rebuilt.groups).toEqual({ mapping: "groups-file", rules: 1, restricted: 2 });
    expect(await visibility("corrupt")).toMatchObject(HIDDEN_ROADMAP);
  });

  it("a tree from before the mapping was stored: refuses to make its restricted pages public", async () => {
    await ingest("legacy", { groupsFile: files.staff });
    await makeLegacy("legacy");
    expect(await visibility("legacy")).toMatchObject(HIDDEN_ROADMAP);

    const refusal =
      "1 restricted page of collection legacy would become public: /internal/roadmap.mdx (staff). " +
      "The collection was ingested before its groups mapping was stored with it, so this ingest doesn't know it; " +
      "pass --groups-file <file> to keep them restricted (the mapping is stored from then on), or --clear-groups to make them public";
    await expect(ingest("legacy")).rejects.toThrow(refusal);
    await expect(ingest("legacy", { rebuild: true })).rejects.toThrow(refusal);
    expect(await visibility("legacy")).toMatchObject(HIDDEN_ROADMAP);
    expect((await storedTree("legacy")).groupRules).toBeUndefined();

    // Passing the file again stores it; from then on it is remembered.
    const again = await ingest("legacy", { groupsFile: files.staff });
    expect(again.pages.unchanged).toBe(9);
    expect((await storedTree("legacy")).groupRules).toEqual(STAFF_MAPPING);
    expect((await ingest("legacy")).groups.mapping).toBe("stored");
    expect(await visibility("legacy")).toMatchObject(HIDDEN_ROADMAP);
  });

  it("an explicit clear makes a legacy tree's mapped pages public", async () => {
    await ingest("legacy-clear", { groupsFile: files.staff });
    await makeLegacy("legacy-clear");
    const cleared = await ingest("legacy-clear", { clearGroups: true });
    expect(cleared.pages).toMatchObject({ changed: 1, unchanged: 8 });
    expect(await visibility("legacy-clear")).toMatchObject(PUBLIC_ROADMAP);
  });

  it("refuses a groups file together with clearGroups", async () => {
    await expect(ingest("both", { groupsFile: files.staff, clearGroups: true })).rejects.toThrow(
      "Pass either a groups file or clearGroups, not both",
    );
  });
});
