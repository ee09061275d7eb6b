import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DocStore } from "../src/doc-store/doc-store.js";
import { openDocsSession } from "../src/session/docs-session.js";
import { LocalFolderStore } from "../src/store/local-folder-store.js";
import { SMALL_DOCS, type SmallDocsDir, writeSmallDocs } from "./fixtures/small-docs.js";
import { startChromaCorpus } from "./oracle/chroma-corpus.js";

const PUBLIC_PAGES = [
  "/docs.json",
  "/guides/deploy.md",
  "/guides/quickstart.md",
  "/index.mdx",
  "/internal/welcome.md",
  "/zh/指南.mdx",
];

const STORES: [string, (dir: string) => Promise<{ store: DocStore; close(): Promise<void> }>][] = [
  ["LocalFolderStore", async (dir) => ({ store: new LocalFolderStore(dir), close: async () => {} })],
  ["ChromaDocStore on a real server", (dir) => startChromaCorpus(dir, "small-docs")],
];

describe.each(STORES)("access control on %s: a hidden page does not exist", (_name, openStore) => {
  let dir: SmallDocsDir;
  let store: DocStore;
  let close: () => Promise<void>;

  beforeAll(async () => {
    dir = writeSmallDocs();
    ({ store, close } = await openStore(dir.root));
  });
  afterAll(async () => {
    await close?.();
    dir?.remove();
  });

  for (const accelerateGrep of [true, false]) {
    describe(`public session (grep acceleration ${accelerateGrep ? "on" : "off"})`, () => {
      const run = async (command: string) =>
        (await openDocsSession({ store, groups: [], accelerateGrep })).exec(command);

      it("ls shows neither the page nor a directory holding only hidden pages", async () => {
        expect(await run("ls /internal")).toEqual({ stdout: "welcome.md\n", stderr: "", exitCode: 0 });
        expect(await run("ls /secret")).toEqual({
          stdout: "",
          stderr: "ls: cannot access '/secret': No such file or directory\n",
          exitCode: 2,
        });
        // Byte for byte what a directory that never existed gives.
        expect(
          (await run("ls /secret 2>&1; cat /secret/plans.md 2>&1")).stdout.replaceAll("secret", "never"),
        ).toBe((await run("ls /never 2>&1; cat /never/plans.md 2>&1")).stdout);
        expect((await run("ls /")).stdout).toBe("docs.json\nguides\nindex.mdx\ninternal\ntmp\nzh\n");
      });

      it("guessed paths are ENOENT for cat, stat, test, head and cd", async () => {
        expect(await run("cat /internal/roadmap.md")).toEqual({
          stdout: "",
          stderr: "cat: /internal/roadmap.md: No such file or directory\n",
          exitCode: 1,
        });
        expect(await run("stat /secret/plans.md")).toMatchObject({ stdout: "", exitCode: 1 });
        expect(await run("test -e /internal/roadmap.md; echo $?")).toMatchObject({ stdout: "1\n" });
        expect(await run("[ -d /secret ] && echo yes || echo no")).toMatchObject({ stdout: "no\n" });
        expect(await run("head -1 /secret/../secret/plans.md")).toMatchObject({ stdout: "", exitCode: 1 });
        expect(await run("cd /secret")).toMatchObject({ stdout: "", exitCode: 1 });
      });

      it("grep over hidden content finds nothing, find lists nothing hidden", async () => {
        expect(await run("grep -rn Falcon /")).toEqual({ stdout: "", stderr: "", exitCode: 1 });
        expect(await run("grep -rl 'API key' /")).toEqual({
          stdout: "/guides/quickstart.md\n/index.mdx\n",
          stderr: "",
          exitCode: 0,
        });
        expect(await run("grep -c Falcon /internal/roadmap.md")).toMatchObject({ stdout: "", exitCode: 2 });
        // -c and -L report on every file they search: hidden ones are not among them.
        expect(await run("grep -rc Falcon /internal /guides")).toEqual({
          stdout: "/internal/welcome.md:0\n/guides/deploy.md:0\n/guides/quickstart.md:0\n",
          stderr: "",
          exitCode: 1,
        });
        expect((await run("grep -rL Falcon /internal")).stdout).toBe("/internal/welcome.md\n");
        expect(await run("find / -type f | sort")).toEqual({
          stdout:
            "/docs.json\n/guides/deploy.md\n/guides/quickstart.md\n/index.mdx\n/internal/welcome.md\n/zh/指南.mdx\n",
          stderr: "",
          exitCode: 0,
        });
      });

      it("search never returns a hidden page", async () => {
        const result = await run("search Falcon");
        const paths = result.stdout
          .split("\n")
          .filter(Boolean)
          .map((line) => line.slice(0, line.indexOf(": ")));
        expect(paths.filter((path) => !PUBLIC_PAGES.includes(path))).toEqual([]);
        expect(result.stderr).toBe("");
      });
    });
  }

  it("a staff session sees staff pages but not admin ones", async () => {
    const session = await openDocsSession({ store, groups: ["staff"] });
    expect((await session.exec("grep -rn Falcon /")).stdout).toBe(
      "/internal/roadmap.md:5:Project Falcon ships in Q3.\n",
    );
    const search = (await session.exec("search Falcon")).stdout.split("\n");
    expect(search[0]).toBe("/internal/roadmap.md: Project Falcon ships in Q3.");
    expect(search.filter((line) => line.startsWith("/secret/"))).toEqual([]);
    expect((await session.exec("ls /secret")).exitCode).toBe(2);
  });

  it("an admin session sees the admin directory", async () => {
    const session = await openDocsSession({ store, groups: ["admin"] });
    expect(await session.exec("ls /secret && cat /secret/plans.md | tail -1")).toEqual({
      stdout: "plans.md\nProject Falcon budget.\n",
      stderr: "",
      exitCode: 0,
    });
  });

  it("the store itself filters every call, not only the tree", async () => {
    const publicAccess = { groups: [] };
    const pages = await store.readPages(["/internal/roadmap.md", "/index.mdx"], publicAccess);
    expect([...pages.keys()]).toEqual(["/index.mdx"]);
    expect(
      await store.findPages({ kind: "contains", text: "Falcon", caseInsensitive: false }, publicAccess),
    ).toEqual([]);
    expect(
      await store.findPages(
        { kind: "contains", text: "falcon", caseInsensitive: true },
        { groups: ["admin"] },
      ),
    ).toEqual(["/secret/plans.md"]);
    const falcon = { kind: "contains", text: "Falcon", caseInsensitive: false } as const;
    expect(await store.findChunks?.(falcon, publicAccess)).toEqual(new Map());
    expect(
      await store.findChunks?.(falcon, publicAccess, ["/internal/roadmap.md", "/secret/plans.md"]),
    ).toEqual(new Map());
    expect(await store.findChunks?.(falcon, { groups: ["staff"] })).toEqual(
      new Map([["/internal/roadmap.md", [{ index: 0, line: 1, text: SMALL_DOCS["internal/roadmap.md"] }]]]),
    );
    const hits = await store.search("Falcon", publicAccess, 10);
    expect(hits.map((hit) => hit.path).filter((path) => !PUBLIC_PAGES.includes(path))).toEqual([]);
  });
});
