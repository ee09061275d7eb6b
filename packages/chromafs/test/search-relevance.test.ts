import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DocStore } from "../src/doc-store/doc-store.js";
import type { SearchRanking } from "../src/doc-store/search-ranking.js";
import { ingestDocs } from "../src/ingest/ingest-docs.js";
import { bestSnippet, windowAround } from "../src/search/snippet.js";
import { openDocsSession } from "../src/session/docs-session.js";
import { ChromaDocStore } from "../src/store/chroma/chroma-doc-store.js";
import { LocalFolderStore } from "../src/store/local-folder-store.js";
import { startTestChroma, type TestChroma, writeFixtureCorpus } from "./fixtures/ingest-fixtures.js";
import { startChromaCorpus } from "./oracle/chroma-corpus.js";
import { CORPUS_DIR } from "./oracle/disk-copy.js";

const NO_HITS = { stdout: "", stderr: "", exitCode: 1 };

describe("search snippets", () => {
  it("never shows a front-matter fence, a bare tag or a bare heading", () => {
    const chunk =
      '---\ntitle: "Audit logs"\nicon: "list"\n---\n\n<Note>\n\n## Export\n\nExport the logs as CSV.\n';
    expect(bestSnippet(chunk, ["xyzzy"], 600)).toBe("Export the logs as CSV.");
    expect(bestSnippet(chunk, ["export"], 600)).toBe("Export the logs as CSV.");
    expect(bestSnippet(chunk, ["audit"], 600)).toBe("Audit logs");
    expect(bestSnippet('---\ntitle: "SSO"\ndescription: "Set up SAML."\n---\n', ["sso"], 600)).toBe(
      "SSO: Set up SAML.",
    );
    expect(bestSnippet("## Limits\n\nAt most 5 requests.\n", ["limits"], 600)).toBe(
      "Limits: At most 5 requests.",
    );
    expect(bestSnippet("---\n\n```\n</div>\n| --- |\n", ["x"], 600)).toBe("");
  });

  it("cuts a long line to a window around its first matching word", () => {
    const line = `${"lorem ipsum ".repeat(20)}the launch window opens ${"dolor sit ".repeat(20)}`;
    expect(windowAround(line, ["launch"], 40)).toBe("…ipsum the launch window opens dolor si…");
    expect(windowAround(line, ["nothing"], 20)).toBe("lorem ipsum lorem i…");
    expect(windowAround("short  line\n", ["x"], 20)).toBe("short line");
  });
});

describe("search on the fixture corpus in Chroma", () => {
  let chroma: TestChroma;
  let store: ChromaDocStore;
  const run = async (command: string, groups: string[] = []) =>
    (await openDocsSession({ store, groups })).exec(command);

  beforeAll(async () => {
    chroma = await startTestChroma("atrium-search-");
    const { dir, groupsFile } = await writeFixtureCorpus(chroma.root);
    await ingestDocs({ dir, groupsFile, collection: "fixture", url: chroma.server.url });
    store = await ChromaDocStore.open({ url: chroma.server.url, collection: "fixture" });
  });
  afterAll(async () => chroma?.close());

  it("prints no nearest neighbours that hold none of the query's words", async () => {
    expect(await run('search "launch codes"')).toEqual(NO_HITS);
    expect(await run("search xyzzy")).toEqual(NO_HITS);
    expect(await run('search "configure a custom domain"')).toEqual({
      stdout: "/guides/deploy.mdx: Configure a custom domain in the dashboard.\n",
      stderr: "",
      exitCode: 0,
    });
    expect(await run('search "launch codes"', ["staff"])).toEqual({
      stdout: "/internal/roadmap.mdx: SECRET-PHRASE-7431: the launch plan for Q3\n",
      stderr: "",
      exitCode: 0,
    });
  });

  it("the store answers only pages with evidence, never nearest neighbours as padding", async () => {
    const hits = await store.search("configure a custom domain", { groups: [] }, 4);
    expect(hits.map((hit) => hit.path)).toEqual(["/guides/deploy.mdx"]);
    expect(hits[0]?.snippet).toBe("Configure a custom domain in the dashboard.");
    expect(await store.search("launch codes", { groups: [] }, 4)).toEqual([]);
  });
});

const MINTLIFY: [string, () => Promise<{ store: DocStore; close(): Promise<void> }>][] = [
  ["LocalFolderStore", async () => ({ store: new LocalFolderStore(CORPUS_DIR), close: async () => {} })],
  ["ChromaDocStore", () => startChromaCorpus(CORPUS_DIR, "mintlify-search")],
];

describe.each(MINTLIFY)("search on the Mintlify corpus (%s)", (_name, openStore) => {
  let store: DocStore;
  let close: () => Promise<void>;
  const run = async (command: string) => (await openDocsSession({ store })).exec(command);

  beforeAll(async () => {
    ({ store, close } = await openStore());
  }, 120_000);
  afterAll(async () => close?.());

  it("a nonsense query prints nothing and exits 1", async () => {
    expect(await run('search "xyzzy plugh"')).toEqual(NO_HITS);
    expect(await run("search qwertyuiop")).toEqual(NO_HITS);
  });

  it("a real query puts the right page first, with a snippet that shows why", async () => {
    const result = await run('search -n 3 "set up single sign-on"');
    expect({ ...result, stdout: result.stdout.split("\n")[0] }).toEqual({
      stdout:
        "/dashboard/sso.mdx: Set up single sign-on with SAML or OIDC identity providers like Okta, Azure AD, and Google Workspace for secure team authentication.",
      stderr: "",
      exitCode: 0,
    });
    for (const line of result.stdout.trimEnd().split("\n")) expect(line).not.toMatch(/: (---|#.*|)$/);
  });

  it("the page named after the query comes first, though others mention it more", async () => {
    const paths = (command: string) =>
      run(command).then((result) => result.stdout.split("\n").map((line) => line.split(":")[0]));
    expect((await paths('search -n 3 "custom domain"'))[0]).toBe("/customize/custom-domain.mdx");
    expect((await paths('search -n 3 "how do I set up a custom domain"'))[0]).toBe(
      "/customize/custom-domain.mdx",
    );
  });
});

/** Three small pages: one titled "Images", one about an image in its body, one about neither. */
function writeRankingFolder(): string {
  const dir = mkdtempSync(join(tmpdir(), "atrium-rankings-"));
  mkdirSync(join(dir, "media"));
  writeFileSync(
    join(dir, "media", "images.mdx"),
    '---\ntitle: "Images"\n---\n\nUpload pictures to the repo.\n',
  );
  writeFileSync(
    join(dir, "media", "resize.mdx"),
    "# Resizing\n\nAn image keeps its ratio when resized, at any size, in any layout, on any screen.\n",
  );
  writeFileSync(join(dir, "other.mdx"), "# Other\n\nNothing to see.\n");
  return dir;
}

const RANKING_STORES: [string, (dir: string) => Promise<{ store: DocStore; close(): Promise<void> }>][] = [
  ["LocalFolderStore", async (dir) => ({ store: new LocalFolderStore(dir), close: async () => {} })],
  ["ChromaDocStore", (dir) => startChromaCorpus(dir, "rankings")],
];

describe.each(RANKING_STORES)("search rankings (%s)", (name, openStore) => {
  let dir: string;
  let store: DocStore;
  let close: () => Promise<void>;
  const paths = async (query: string, ranking: SearchRanking) =>
    (await store.search(query, { groups: [] }, 5, { ranking })).map((hit) => hit.path);

  beforeAll(async () => {
    dir = writeRankingFolder();
    ({ store, close } = await openStore(dir));
  }, 60_000);
  afterAll(async () => {
    await close?.();
    rmSync(dir, { recursive: true, force: true });
  });

  it("keyword is plain BM25: whole words as written", async () => {
    expect(await paths("images", "keyword")).toEqual(["/media/images.mdx"]);
    expect(await paths("image", "keyword")).toEqual(["/media/resize.mdx"]);
  });

  it("the fusion folds plurals and ranks the page titled after the query first", async () => {
    expect(await paths("image", "fused-without-vector")).toEqual(["/media/images.mdx", "/media/resize.mdx"]);
    expect((await paths("image", "fused"))[0]).toBe("/media/images.mdx");
    expect(await paths("nothing", "fused")).toEqual(["/other.mdx"]);
  });

  it("vector is the embedding alone: every nearest page, none without embeddings", async () => {
    const vector = await paths("image", "vector");
    if (name === "LocalFolderStore") expect(vector).toEqual([]);
    else expect([...vector].sort()).toEqual(["/media/images.mdx", "/media/resize.mdx", "/other.mdx"]);
  });
});
