// `kill -9` of a real `atrium-docs ingest` at every phase of an ingest and of a rebuild: at the
// moment of the kill and after a plain re-run without --groups-file, no restricted page is
// visible without its group, and with it every page reads back byte-identical to the source.
// The phases are hit through ingest's test hook (ATRIUM_INGEST_PAUSE_AT, `pause-for-test.ts`).
import { type ChildProcess, spawn } from "node:child_process";
import { appendFileSync, cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { type ChromaServer, connectChroma, startChromaServer } from "@atrium/chroma";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cliArgs } from "../../../tests/test-target.ts";
import { walkDocs } from "../src/docs-folder/walk-docs.js";
import { openDocsSession } from "../src/session/docs-session.js";
import { ChromaDocStore } from "../src/store/chroma/chroma-doc-store.js";

const PACKAGE_DIR = fileURLToPath(new URL("..", import.meta.url));
const CORPUS = fileURLToPath(new URL("../../../fixtures/corpora/mintlify-docs", import.meta.url));
const SECRET = "SECRET-CRASH-5521: the acquisition closes in May";
/** Restricted by the groups file only: exactly what a lost mapping would publish. */
const GROUPS = { "zh/**": ["staff"], "internal/**": ["staff"] };
const STAGING = "docs.atrium-rebuild";

/** Copies Mintlify's docs without the es/ and fr/ translations: about 590 pages, 1,250 chunks (two upsert batches). */
function writeCorpus(dir: string): void {
  cpSync(CORPUS, dir, {
    recursive: true,
    filter: (source) => !/[/\\](es|fr)$/.test(source),
  });
  mkdirSync(join(dir, "internal"));
  writeFileSync(join(dir, "internal", "roadmap.md"), `# Roadmap\n\n${SECRET}\n`);
}

interface Run {
  stdout: string;
  stderr: string;
  code: number | null;
}

function atriumDocs(args: string[], pauseAt?: string): { child: ChildProcess; done: Promise<Run> } {
  const child = spawn(process.execPath, [...cliArgs(PACKAGE_DIR), ...args], {
    cwd: PACKAGE_DIR,
    env: {
      ...process.env,
      ATRIUM_CHROMA_URL: "",
      ATRIUM_CHROMA_PATH: "",
      ATRIUM_EMBEDDING: "",
      ATRIUM_INGEST_PAUSE_AT: pauseAt ?? "",
    },
  });
  const run: Run = { stdout: "", stderr: "", code: null };
  child.stdout?.on("data", (data) => {
    run.stdout += data;
  });
  child.stderr?.on("data", (data) => {
    run.stderr += data;
  });
  const done = new Promise<Run>((resolve) => child.on("close", (code) => resolve({ ...run, code })));
  return { child, done: done.then(() => ({ ...run, code: child.exitCode })) };
}

/** Starts an ingest, waits until it pauses at `point`, runs `whilePaused`, then kills it with SIGKILL. */
async function killAt(point: string, args: string[], whilePaused: () => Promise<void>): Promise<Run> {
  const { child, done } = atriumDocs(args, point);
  const marker = `atrium-docs ingest: paused at ${point}\n`;
  let stderr = "";
  await new Promise<void>((resolve, reject) => {
    child.stderr?.on("data", (data) => {
      stderr += data;
      if (stderr.includes(marker)) resolve();
    });
    child.on("close", (code) =>
      reject(new Error(`ingest exited (${code}) before pausing at ${point}:\n${stderr}`)),
    );
  });
  try {
    await whilePaused();
  } finally {
    child.kill("SIGKILL");
  }
  const run = await done;
  expect(child.signalCode).toBe("SIGKILL");
  return run;
}

describe("atrium-docs ingest killed with SIGKILL at every phase", () => {
  let root = "";
  let dir = "";
  let groupsFile = "";
  let server: ChromaServer | undefined;
  let target: string[] = [];

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), "chromafs-crash-"));
    dir = join(root, "docs");
    writeCorpus(dir);
    groupsFile = join(root, "groups.json");
    writeFileSync(groupsFile, JSON.stringify(GROUPS));
    server = await startChromaServer({ path: join(root, "chroma") });
    target = ["ingest", dir, "--collection", "docs", "--chroma-url", server.url];
  }, 60_000);
  afterAll(async () => {
    try {
      await server?.stop();
    } finally {
      if (root) rmSync(root, { recursive: true, force: true });
    }
  });

  const url = () => (server as ChromaServer).url;

  async function sessionFor(groups: string[]) {
    const store = await ChromaDocStore.open({ url: url(), collection: "docs" });
    return { store, session: await openDocsSession({ store, groups }) };
  }

  /**
   * What a user without groups sees: nothing restricted through ls -R, find or grep -r (or no
   * collection to open at all, which leaks nothing either). Returns whether a session opened.
   */
  async function expectNothingRestrictedPublic(): Promise<boolean> {
    let opened: Awaited<ReturnType<typeof sessionFor>>;
    try {
      opened = await sessionFor([]);
    } catch (error) {
      expect(String(error)).toMatch(/does not exist|has no path tree/);
      return false;
    }
    const { session } = opened;
    const root = await session.exec("ls /");
    expect(root.stdout).toContain("quickstart.mdx\n");
    expect(root.stdout.split("\n").filter((name) => name === "zh" || name === "internal")).toEqual([]);
    // /snippets/zh is public (the rule is zh/**): only the top-level /zh and /internal are restricted.
    const listing = await session.exec("ls -R /; find /");
    expect(listing.exitCode).toBe(0);
    expect(listing.stdout.split("\n").filter((line) => /^\/(zh|internal)\b/.test(line))).toEqual([]);
    // The secret and a phrase only the Chinese pages under /zh hold are nowhere to be found.
    expect(await session.exec(`grep -rl "${SECRET}" /; grep -rl 快速开始 /; grep -rl 仅限员工 /`)).toEqual({
      stdout: "",
      stderr: "",
      exitCode: 1,
    });
    expect((await session.exec("cat /internal/roadmap.md")).stderr).toBe(
      "cat: /internal/roadmap.md: No such file or directory\n",
    );
    for (const query of ["快速开始", "acquisition closes"]) {
      const hits = await opened.store.search(query, { groups: [] }, 50);
      expect(hits.filter((hit) => /^\/(zh|internal)\//.test(hit.path))).toEqual([]);
    }
    return true;
  }

  /** With the group, every page of the source is there and reads back byte for byte; nothing else is. */
  async function expectEveryPageIdentical(): Promise<void> {
    const docs = await walkDocs(dir);
    const { store, session } = await sessionFor(["staff"]);
    const find = await session.exec("find / -type f");
    expect(find.stdout.split("\n").filter(Boolean).sort()).toEqual(docs.map((doc) => doc.page).sort());
    const pages = await store.readPages(
      docs.map((doc) => doc.page),
      { groups: ["staff"] },
    );
    for (const doc of docs) expect(pages.get(doc.page), doc.page).toBe(readFileSync(doc.file, "utf8"));
    expect((await session.exec("cat /internal/roadmap.md")).stdout).toBe(`# Roadmap\n\n${SECRET}\n`);
  }

  /** A plain re-run without --groups-file: it succeeds and keeps the mapping of the killed run. */
  async function rerun(restricted: string): Promise<Run> {
    const run = await atriumDocs([...target, "-q"]).done;
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain(`groups: mapping stored with the collection (2 rules); ${restricted}`);
    await expectNothingRestrictedPublic();
    await expectEveryPageIdentical();
    return run;
  }

  async function collections(): Promise<string[]> {
    return (await (await connectChroma(url())).listCollections()).map((collection) => collection.name).sort();
  }

  async function chunkCount(name: string): Promise<number> {
    return (await (await connectChroma(url())).getCollection({ name })).count();
  }

  /** Changes a restricted and a public page and adds a restricted one, so a re-ingest has work. */
  function editCorpus(round: number): void {
    appendFileSync(join(dir, "zh", "index.mdx"), `\n新的一行 ${round}\n`);
    appendFileSync(join(dir, "quickstart.mdx"), `\nEdited in round ${round}.\n`);
    writeFileSync(join(dir, "zh", `round-${round}.md`), `# 第 ${round} 轮\n\n仅限员工。\n`);
  }

  let pageCounts = { restricted: 0, total: 0 };
  const restrictedPages = () => `${pageCounts.restricted} of ${pageCounts.total} pages restricted`;
  async function countPages(): Promise<void> {
    const docs = await walkDocs(dir);
    pageCounts = {
      total: docs.length,
      restricted: docs.filter((doc) => /^\/(zh|internal)\//.test(doc.page)).length,
    };
  }

  it("a first ingest killed while its chunks are written: the re-run still applies the groups file's mapping", async () => {
    await countPages();
    await killAt("chunks", [...target, "--groups-file", groupsFile], async () => {
      // Some chunks are in, not all (1,250 of them go in batches of 1,000), and there is no tree.
      const count = await chunkCount("docs");
      expect(count).toBeGreaterThanOrEqual(1_000);
      expect(count).toBeLessThan(1_200);
      expect(await expectNothingRestrictedPublic()).toBe(false);
    });
    await rerun(restrictedPages());
  }, 90_000);

  it("a re-ingest killed after its chunks, before its tree", async () => {
    editCorpus(1);
    await countPages();
    await killAt("tree", target, async () => {
      expect(await expectNothingRestrictedPublic()).toBe(true);
    });
    await rerun(restrictedPages());
  }, 60_000);

  it("a re-ingest killed after its tree, before the stale chunks are deleted", async () => {
    editCorpus(2);
    await countPages();
    await killAt("cleanup", target, async () => {
      expect(await expectNothingRestrictedPublic()).toBe(true);
      await expectEveryPageIdentical();
    });
    await rerun(restrictedPages());
  }, 60_000);

  it("a rebuild without the groups file killed while its chunks are written leaves the old collection in use", async () => {
    await killAt("chunks", [...target, "--rebuild"], async () => {
      expect(await collections()).toEqual(["docs", STAGING]);
      expect(await expectNothingRestrictedPublic()).toBe(true);
      await expectEveryPageIdentical();
    });
    const run = await rerun(restrictedPages());
    expect(run.stderr).toBe(
      `atrium-docs ingest: dropped ${STAGING}, the half-built collection of an interrupted --rebuild of docs; the old docs was never touched and stays in use\n`,
    );
    expect(await collections()).toEqual(["docs"]);
  }, 60_000);

  it("a rebuild killed after its chunks, before its tree", async () => {
    editCorpus(3);
    await countPages();
    await killAt("tree", [...target, "--rebuild"], async () => {
      expect(await expectNothingRestrictedPublic()).toBe(true);
    });
    const run = await rerun(restrictedPages());
    expect(run.stderr).toContain(`dropped ${STAGING}`);
    expect(await collections()).toEqual(["docs"]);
  }, 60_000);

  it("a rebuild killed while the old collection is replaced: the re-run finishes the swap", async () => {
    await killAt("swap", [...target, "--rebuild"], async () => {
      expect(await collections()).toEqual([STAGING]);
      expect(await expectNothingRestrictedPublic()).toBe(false);
    });
    const run = await rerun(restrictedPages());
    expect(run.stderr).toBe(
      `atrium-docs ingest: finished an interrupted --rebuild of docs: its new collection ${STAGING} was complete, so it now takes its place\n`,
    );
    expect(run.stdout).toMatch(/ 0 added, 0 changed, 0 removed, \d+ unchanged; /);
    expect(await collections()).toEqual(["docs"]);
  }, 60_000);
});
