import { afterAll, beforeAll, describe, expect, it } from "vitest";
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
  "rg zzzz-not-present /; echo $?",
  "rg 'Kube.*tes' /deploy",
  "rg --hidden Kubernetes /deploy",
  "rg Kubernetes /deploy/ci.mdx",
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
    const index = await (await import("../src/tree/tree-cache.js")).treeCacheFor(store).index(fast.access);
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
      args: ["-rn", "--", "Kubernetes", ...kubernetes],
      candidates: kubernetes,
    });
    expect(await plan("-rl --include *.json mintlify .")).toEqual({
      kind: "narrowed",
      args: ["-rl", "--include=*.json", "--", "mintlify", "./docs.json"],
      candidates: ["./docs.json"],
    });
    expect(await plan("-rl --include *.json mintlify")).toMatchObject({ candidates: ["docs.json"] });
    expect(await plan("-rl Kubernetes /deploy//", "/")).toMatchObject({
      candidates: ["/deploy/ci.mdx", "/deploy/self-host.mdx"],
    });
    expect(await plan("-rn zzzz-not-present /")).toEqual({ kind: "no-candidates" });
  });

  it("keeps file names when several files narrow down to one", async () => {
    expect(await plan("Kubernetes /index.mdx /deploy/ci.mdx")).toMatchObject({
      kind: "narrowed",
      args: ["-r", "--", "Kubernetes", "/deploy/ci.mdx"],
    });
  });

  it("falls back to the full scan for what the store cannot narrow", async () => {
    for (const [command, reason] of [
      ["-rv x /", "-v/-c/-L report on non-matching files"],
      ["-rc x /", "-v/-c/-L report on non-matching files"],
      ["-rL x /", "-v/-c/-L report on non-matching files"],
      ["-r -e a -e b /", "several patterns"],
      ["-r -f /docs.json /", "patterns from a file (-f)"],
      ["-rP a /", "perl regex (-P)"],
      ["-r \\(a\\)\\1 /", "pattern not translatable"],
      ["-n x", "reads standard input"],
      ["-rZ x /", "unknown or special option"],
      ["-r --exclude-dir zh x /", "--exclude-dir"],
    ] as const) {
      expect(await plan(command)).toMatchObject({ kind: "full-scan", reason });
    }
  });

  it("narrows rg for plain strings, making its output switches explicit", async () => {
    const index = await (await import("../src/tree/tree-cache.js")).treeCacheFor(store).index(fast.access);
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
    expect(await planRg(["-i", "Kubernetes", "/deploy", "/index.mdx"], "/", acceleration)).toEqual({
      kind: "narrowed",
      args: ["-i", "-H", "-n", "-e", "Kubernetes", "/deploy/ci.mdx", "/deploy/self-host.mdx"],
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
    expect(a.pageFetches).toBe(1);
    expect(b.pageFetches).toBe(1117);
  });
});
