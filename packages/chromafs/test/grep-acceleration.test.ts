import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sparsePage } from "../src/fs/page-views.js";
import { planGrep } from "../src/grep/grep-command.js";
import { type DocsSession, openDocsSession } from "../src/session/docs-session.js";
import { LocalFolderStore } from "../src/store/local-folder-store.js";
import { CORPUS_DIR } from "./oracle/disk-copy.js";

/** Each command runs with acceleration on and off; stdout, stderr and exit code must be identical. */
const SAME_OUTPUT: readonly string[] = [
  "grep -rn Kubernetes /",
  "grep -rn Kubernetes /deploy /api",
  "cd /zh && grep -rn Mintlify ai",
  "cd / && grep -rn 'Kubernetes' deploy/../deploy",
  "grep -rn 'Kubernetes' /deploy/",
  "cd /deploy && grep -rn 'Helm' .",
  "grep -ril openapi /api",
  "grep -rl '接口' /zh",
  "grep -rin 'mcp server' /",
  "grep -rw API /api-playground",
  "grep -rx -- '---' /ai",
  "grep -rE '(OpenAPI|AsyncAPI) spec' /api-playground",
  "grep -rn 'error\\|warning' /deploy",
  "grep -rn 'a+b' /",
  "grep -rn 'tab[sl]e' /components",
  "grep -ro 'https://[a-z.]*mintlify.com' /ai",
  "grep -rn --include='*.json' mintlify /",
  "grep -rln --include '*.md' Mintlify /",
  "grep -rl --exclude='*.mdx' docs /",
  "grep -rl --exclude '*.mdx' --include '*.md' docs /",
  "grep -rn -m 1 Mintlify /ai",
  "grep -rn -A 1 -B 1 Kubernetes /deploy",
  "grep -F -rn '[!NOTE]' /",
  "grep -rn 'zzzz-not-present' /",
  "grep -rq Kubernetes /; echo $?",
  "grep -rh '^title:' /es/ai",
  "grep -n Mintlify /index.mdx /quickstart.mdx /zh/index.mdx",
  "grep Kubernetes /index.mdx /deploy/ci.mdx",
  "grep -l Kubernetes /index.mdx /deploy/ci.mdx",
  "grep -h Kubernetes /index.mdx /deploy/ci.mdx",
  "grep Kubernetes /deploy/ci.mdx",
  "grep -i 'MINTLIFY' /zh/quickstart.mdx",
  "cd /ai && grep -n mcp *.mdx",
  "grep -rEi '\\bhelm\\b' /deploy",
  "grep -rn 'x\\{3\\}' /api",
  "grep -rn '[[:digit:]]\\{4\\}-[[:digit:]]\\{2\\}' /changelog.mdx",
  "grep -rn 'Mint.*CLI' /zh/ai",
  "grep -rc Kubernetes /deploy",
  "grep -rv '^$' /ai/slack-bot.mdx",
  "grep -rL Mintlify /es/ai",
  "grep -r -e Kubernetes -e Helm /deploy",
  "grep -rn Kubernetes /nope",
  "grep -rn Kubernetes /index.mdx/",
  "grep -n Kubernetes /deploy",
  "grep -rn '\\(a\\)\\1' /ai",
  "grep -r --exclude-dir=zh -l Kubernetes /",
  "echo Kubernetes | grep -c Kube",
  "grep -rn Kubernetes / | wc -l",
  "egrep -rn 'Kube(rnetes)?' /deploy",
  "fgrep -rn 'a+b' /",
  "grep --help | head -1",
  "grep -rZ x /ai",
  "grep -rZl Kubernetes /deploy",
  "grep -rb Kubernetes /deploy",
  "grep -rH Kubernetes /deploy",
  "grep -r -2 Kubernetes /deploy",
  "grep -rT x /ai; echo $?",
  "grep -rn '\\(a\\)\\2' /ai; echo $?",
  // GNU's spelling of `/`, `.`, no operand and trailing slashes, in both paths
  "cd / && grep -rl 'API key'",
  "cd /deploy && grep -rn Helm ./",
  "grep -rn Kubernetes //deploy//",
  "cd /zh && grep -rl Mintlify . ../deploy/ | head",
  "grep -rc Kubernetes /deploy/",
  // rg: plain-string patterns over directories or several files are narrowed
  "rg Kubernetes /deploy /api",
  "rg Kubernetes /",
  "cd /zh && rg Mintlify ai",
  "cd /deploy && rg Helm",
  "cd /deploy && rg Helm .",
  "cd / && rg -l Kubernetes deploy/",
  "rg -c Mintlify /ai",
  "rg -i 'mcp server' /ai",
  "rg -S kubernetes /deploy",
  // rg is case-insensitive by default for a pattern without upper-case letters (smart case)
  "rg kubernetes /deploy",
  "rg -c kubernetes /deploy",
  "rg -S Kubernetes /deploy",
  "rg -i -s kubernetes /deploy",
  "rg -s -i Kubernetes /deploy",
  "rg -eKubernetes /deploy",
  "rg -w API /api-playground",
  "rg -o Kubernetes /deploy",
  "rg -on Kubernetes /deploy",
  "rg -N Kubernetes /deploy",
  "rg -I Kubernetes /deploy",
  "rg -m 1 Mintlify /ai",
  "rg -A 1 Kubernetes /deploy",
  "rg -F '[!NOTE]' /ai /deploy",
  "rg Kubernetes /index.mdx /deploy/ci.mdx",
  "rg -q Kubernetes /deploy; echo $?",
  "rg zzzz-not-present /es/ai /es/deploy; echo $?",
  "rg 'Kube.*tes' /deploy",
  "rg --hidden Kubernetes /deploy",
  "rg Kubernetes /deploy/ci.mdx",
  // several patterns, GNU BRE operators, missing operands, --color
  "grep -c -e Helm -e Kubernetes /deploy/self-host.mdx",
  "grep -rn -e Kubernetes -e Helm /",
  "grep -rn $'Helm\\nOpenShift' /deploy",
  "grep -rno -e Kube -e Kubernetes /deploy",
  "grep -rnoF -e Kube -e Kubernetes /",
  "grep -rl -e 'API key' -e webhook -e '[0-9]\\+ ms' /fr/changelog.mdx /fr/deploy",
  "grep -rn -e '\\<Helm\\>' -e 'Kube\\+' /deploy",
  "egrep -rn -e 'Kube(rnetes)?' -e 'He+lm' /deploy",
  "fgrep -rn -e Helm -e Kube /deploy",
  "grep -rn '[0-9]\\+ ms' /fr/changelog.mdx /es/api",
  "grep -rn 'https\\?://[a-z.]*mintlify' /zh/ai",
  "grep -rnE '[0-9]{4}-[0-9]{2}' /changelog.mdx",
  "grep -r x /nope; echo $?",
  "grep -r Kubernetes /deploy/ci.mdx /nope; echo $?",
  "grep -rs x /nope; echo $?",
  "grep -rq Kubernetes /nope /deploy; echo $?",
  "grep -q Kubernetes /deploy /deploy/ci.mdx; echo $?",
  "grep -s Kubernetes /deploy /deploy/ci.mdx; echo $?",
  "grep --color=never -rn Kubernetes /deploy",
  "grep --colour=auto -c Kubernetes /deploy/ci.mdx",
];

describe("grep acceleration gives grep's own output", () => {
  let store: LocalFolderStore;
  let fast: DocsSession;
  let plain: DocsSession;

  beforeAll(async () => {
    store = new LocalFolderStore(CORPUS_DIR);
    fast = await openDocsSession({ store });
    plain = await openDocsSession({ store, accelerateGrep: false });
  }, 60_000);
  afterAll(async () => {
    await fast?.close();
    await plain?.close();
  });

  it.each(SAME_OUTPUT)("%s", async (command) => {
    const accelerated = await fast.exec(command);
    const unaccelerated = await plain.exec(command);
    expect(accelerated).toEqual(unaccelerated);
  });

  const plan = async (command: string, cwd = "/") => {
    const index = await (await import("../src/fs/tree-cache.js")).treeCacheFor(store).index(fast.access);
    const { PageSource } = await import("../src/fs/page-source.js");
    const { PageCache } = await import("../src/fs/page-cache.js");
    return planGrep(command.split(" "), cwd, {
      store,
      access: fast.access,
      index,
      pages: new PageSource(store, fast.access, new PageCache(1 << 20)),
      fs: fast.fs,
    });
  };

  it("narrows to the files the store finds, spelled as grep prints them", async () => {
    const kubernetes = ["/api/static-export/overview.mdx", "/deploy/ci.mdx", "/deploy/self-host.mdx"];
    for (const language of ["es", "fr", "zh"])
      kubernetes.push(`/${language}/deploy/ci.mdx`, `/${language}/deploy/self-host.mdx`);
    expect(await plan("-rn Kubernetes /")).toEqual({
      kind: "narrowed",
      candidates: kubernetes,
      views: expect.any(Map),
    });
    expect(await plan("-rl --include *.json mintlify .")).toEqual({
      kind: "narrowed",
      candidates: ["./docs.json"],
      views: expect.any(Map),
    });
    expect(await plan("-rl --include *.json mintlify")).toMatchObject({ candidates: ["docs.json"] });
    expect(await plan("-rl Kubernetes /deploy//", "/")).toMatchObject({
      candidates: ["/deploy/ci.mdx", "/deploy/self-host.mdx"],
    });
    expect(await plan("-rn zzzz-not-present /")).toEqual({ kind: "no-candidates" });
  });

  it("lets grep read only the matching chunks, every other line left empty in place", async () => {
    const narrowed = await plan("-rn Kubernetes /");
    if (narrowed.kind !== "narrowed") throw new Error(`expected a narrowed plan, got ${narrowed.kind}`);
    expect([...narrowed.views.keys()]).toEqual(narrowed.candidates);
    const pages = await store.readPages(narrowed.candidates, fast.access);
    let blanked = 0;
    for (const [path, view] of narrowed.views) {
      const lines = (pages.get(path) as string).split("\n");
      const viewLines = (sparsePage(view) as string).split("\n");
      expect(viewLines.length).toBeLessThanOrEqual(lines.length);
      viewLines.forEach((line, index) => {
        if (line === "" && lines[index] !== "") blanked++;
        else expect(line).toBe(lines[index]);
      });
      expect(viewLines.some((line) => line.includes("Kubernetes"))).toBe(true);
    }
    // The self-hosting page is several chunks, only some of which mention Kubernetes.
    expect(blanked).toBeGreaterThan(0);
    // Case-insensitive strings with punctuation read sparse pages too (no store error fallback).
    const signOn = await plan("-rin sign-on /dashboard");
    expect(signOn).toMatchObject({ kind: "narrowed", candidates: ["/dashboard/sso.mdx"] });
    expect(signOn.kind === "narrowed" && [...signOn.views.keys()]).toEqual(["/dashboard/sso.mdx"]);
    // Context lines need whole pages: no sparse views then.
    expect(await plan("-rn -C 1 Kubernetes /")).toMatchObject({ kind: "narrowed", views: new Map() });
    expect(await plan("-rn -A1 Kubernetes /")).toMatchObject({ kind: "narrowed", views: new Map() });
    // So does a pattern that could match the empty lines standing in for the chunks left out.
    expect(await plan("-rn x* /")).toMatchObject({ kind: "narrowed", views: new Map() });
    expect(await plan("-rEn Kube|x? /")).toMatchObject({ kind: "narrowed", views: new Map() });
  });

  it("shows sparse pages to that grep call only, not to other commands running meanwhile", async () => {
    const session = await openDocsSession({ store });
    const page = (await store.readPages(["/deploy/self-host.mdx"], session.access)).get(
      "/deploy/self-host.mdx",
    );
    const [grep, cat] = await Promise.all([
      session.exec("grep -rn Kubernetes /deploy"),
      session.exec("cat /deploy/self-host.mdx"),
    ]);
    expect(grep).toEqual(await plain.exec("grep -rn Kubernetes /deploy"));
    expect(cat.stdout).toBe(page);
    expect(
      (await session.exec("grep -l Kubernetes /deploy/self-host.mdx; cat /deploy/self-host.mdx")).stdout,
    ).toBe(`/deploy/self-host.mdx\n${page}`);
    await session.close();
  });

  it("narrows several patterns and GNU BRE by the union of their filters", async () => {
    const deploy = ["/deploy/ci.mdx", "/deploy/self-host.mdx"];
    expect(await plan("-rn -e Helm -e Kubernetes /deploy")).toEqual({
      kind: "narrowed",
      candidates: deploy,
      views: expect.any(Map),
    });
    expect(await plan("-rlF -e Helm -e Kube /deploy")).toMatchObject({
      kind: "narrowed",
      candidates: deploy,
    });
    expect(await plan("-rn Ku\\+bernetes /deploy")).toMatchObject({ kind: "narrowed", candidates: deploy });
    // A back-reference has no filter: every file is read.
    expect(await plan("-rn -e \\(a\\)\\1 -e b /deploy")).toEqual({
      kind: "full-scan",
      reason: "pattern not translatable",
    });
  });

  it("keeps file names when several files narrow down to one", async () => {
    expect(await plan("Kubernetes /index.mdx /deploy/ci.mdx")).toMatchObject({
      kind: "narrowed",
      candidates: ["/deploy/ci.mdx"],
    });
    expect((await fast.exec("grep Kubernetes /index.mdx /deploy/ci.mdx")).stdout).toMatch(
      /^\/deploy\/ci\.mdx:/,
    );
  });

  it("falls back to the full scan for what the store cannot narrow", async () => {
    for (const [command, reason] of [
      ["-rv x /", "-v prints the lines that do not match"],
      ["-rc x* /", "-c/-L report on every file"],
      ["-rL -C1 x /", "-c/-L report on every file"],
      ["-r -f /docs.json /", "patterns from a file (-f)"],
      ["-rP a /", "perl regex (-P)"],
      ["-r \\(a\\)\\1 /", "pattern not translatable"],
      ["-n x", "reads standard input"],
      ["-rT x /", "unknown or special option"],
      ["-r --exclude-dir zh x /", "--exclude-dir"],
    ] as const) {
      expect(await plan(command)).toMatchObject({ kind: "full-scan", reason });
    }
  });

  it("narrows rg for plain strings, making its output switches explicit", async () => {
    const index = await (await import("../src/fs/tree-cache.js")).treeCacheFor(store).index(fast.access);
    const { PageSource } = await import("../src/fs/page-source.js");
    const { PageCache } = await import("../src/fs/page-cache.js");
    const { planRg } = await import("../src/grep/rg-command.js");
    const acceleration = {
      store,
      access: fast.access,
      index,
      pages: new PageSource(store, fast.access, new PageCache(1 << 20)),
      fs: fast.fs,
    };
    const rg = await planRg(["-i", "Kubernetes", "/deploy", "/index.mdx"], "/", acceleration);
    expect(rg).toEqual({
      kind: "narrowed",
      args: ["-i", "-H", "-n", "-e", "Kubernetes", "/deploy/ci.mdx", "/deploy/self-host.mdx"],
      views: expect.any(Map),
    });
    // rg reads sparse pages too (the matching chunks whole, at their own line numbers, every
    // other line empty), except with context.
    expect([...(rg.views?.keys() ?? [])]).toEqual(["/deploy/ci.mdx", "/deploy/self-host.mdx"]);
    const viewLines = (sparsePage(rg.views?.get("/deploy/ci.mdx") ?? []) as string).split("\n");
    const pageLines = (await plain.exec("cat /deploy/ci.mdx")).stdout.split("\n");
    expect(viewLines.filter((line, at) => line !== "" && line !== pageLines[at])).toEqual([]);
    const matches = (await plain.exec("grep -in kubernetes /deploy/ci.mdx")).stdout.trimEnd().split("\n");
    expect(matches.length).toBeGreaterThan(0);
    expect(
      matches.map((line) => `${Number.parseInt(line, 10)}:${viewLines[Number.parseInt(line, 10) - 1]}`),
    ).toEqual(matches);
    expect(await planRg(["-C1", "Kubernetes", "/deploy"], "/", acceleration)).toEqual({
      kind: "narrowed",
      args: ["-C1", "-H", "-n", "-e", "Kubernetes", "/deploy/ci.mdx", "/deploy/self-host.mdx"],
    });
    expect(await planRg(["Kube.*tes", "/deploy"], "/", acceleration)).toMatchObject({ kind: "full-scan" });
    expect(await planRg(["Kubernetes", "/deploy/ci.mdx"], "/", acceleration)).toMatchObject({
      kind: "full-scan",
    });
    expect(await planRg(["--hidden", "Kubernetes", "/"], "/", acceleration)).toMatchObject({
      kind: "full-scan",
    });
  });

  it("reads far fewer pages than the full scan", async () => {
    const a = await openDocsSession({ store, pageCacheBytes: 1 << 26 });
    const b = await openDocsSession({ store, accelerateGrep: false, pageCacheBytes: 1 << 26 });
    await a.exec("grep -rn Kubernetes /");
    await b.exec("grep -rn Kubernetes /");
    // Matching chunks come with the filter's answer: no whole page is read.
    expect(a.pageFetches).toBe(0);
    expect(b.pageFetches).toBe(1117);
    // -c and -L report on every file, yet read no page: the others are empty to grep. (Counts
    // as GNU grep gives them on the disk copy.)
    const counts = await a.exec("grep -rc Kubernetes /");
    expect(counts).toEqual(await b.exec("grep -rc Kubernetes /"));
    expect(counts.stdout.split("\n").filter((line) => !line.endsWith(":0"))).toEqual([
      "/api/static-export/overview.mdx:1",
      "/deploy/ci.mdx:1",
      "/deploy/self-host.mdx:10",
      "/es/deploy/ci.mdx:1",
      "/es/deploy/self-host.mdx:10",
      "/fr/deploy/ci.mdx:1",
      "/fr/deploy/self-host.mdx:10",
      "/zh/deploy/ci.mdx:1",
      "/zh/deploy/self-host.mdx:10",
      "",
    ]);
    expect((await a.exec("grep -rL Kubernetes /deploy")).stdout).toBe(
      (await b.exec("grep -rL Kubernetes /deploy")).stdout,
    );
    expect(a.pageFetches).toBe(0);
    // Context lines need the whole candidate pages: one batched read.
    await a.exec("grep -rn -C1 Kubernetes /");
    expect(a.pageFetches).toBe(1);
  });
});
