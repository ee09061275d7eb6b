import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DocsSession, openDocsSession } from "../src/session/docs-session.js";
import { LocalFolderStore } from "../src/store/local-folder-store.js";
import { type SmallDocsDir, writeSmallDocs } from "./fixtures/small-docs.js";

describe("DocsFs through just-bash", () => {
  let dir: SmallDocsDir;
  let store: LocalFolderStore;
  let session: DocsSession;

  beforeAll(async () => {
    dir = writeSmallDocs();
    store = new LocalFolderStore(dir.root);
    session = await openDocsSession({ store, groups: ["staff"] });
  });
  afterAll(() => dir.remove());

  const run = (command: string) => session.exec(command);

  it("lists directories implied by page paths, with the scratch /tmp", async () => {
    expect(await run("ls /")).toEqual({
      stdout: "docs.json\nguides\nindex.mdx\ninternal\ntmp\nzh\n",
      stderr: "",
      exitCode: 0,
    });
    expect((await run("ls -R /guides")).stdout).toBe("/guides:\ndeploy.md\nquickstart.md\n");
  });

  it("reads pages byte for byte, unicode paths and content included", async () => {
    expect((await run("cat /zh/指南.mdx")).stdout).toBe("# 指南\n这是中文文档。\nAPI 密钥在设置中。\n");
    expect((await run("wc -c /zh/指南.mdx")).stdout).toBe("57 /zh/指南.mdx\n");
    expect((await run("cd /zh && cat ./../guides/deploy.md | head -1")).stdout).toBe("# Deploy\n");
  });

  it("answers stat from the tree (size) without fetching content", async () => {
    const fresh = await openDocsSession({ store, groups: [] });
    expect((await fresh.exec("stat -c '%s %F' /guides/deploy.md /guides")).stdout).toBe(
      "35 regular file\n4096 directory\n",
    );
    expect((await fresh.exec("find / -type f -name '*.md' | sort")).stdout).toBe(
      "/guides/deploy.md\n/guides/quickstart.md\n/internal/welcome.md\n",
    );
    expect(fresh.pageFetches).toBe(0);
  });

  it("refuses writes with EROFS and bash's own messages", async () => {
    expect(await run("echo x > /index.mdx")).toEqual({
      stdout: "",
      stderr: "bash: /index.mdx: Read-only file system\n",
      exitCode: 1,
    });
    expect(await run("mkdir /new")).toEqual({
      stdout: "",
      stderr: "mkdir: cannot create directory '/new': EROFS: read-only file system, mkdir '/new'\n",
      exitCode: 1,
    });
    expect(await run("rm /index.mdx")).toEqual({
      stdout: "",
      stderr: "rm: cannot remove '/index.mdx': EROFS: read-only file system, rm '/index.mdx'\n",
      exitCode: 1,
    });
    expect((await run("cat /index.mdx | head -2")).stdout).toBe("---\ntitle: Home\n");
  });

  it("has a /dev/null that swallows writes and reads empty, without showing in ls /", async () => {
    expect(
      await run("echo hidden > /dev/null; echo x >> /dev/null; ls /nope 2>/dev/null; echo rc=$?"),
    ).toEqual({
      stdout: "rc=2\n",
      stderr: "",
      exitCode: 0,
    });
    expect(
      await run("cat /dev/null | wc -c; test -e /dev/null && test ! -f /dev/null && echo device"),
    ).toEqual({
      stdout: "0\ndevice\n",
      stderr: "",
      exitCode: 0,
    });
    expect((await run("ls /")).stdout).toBe("docs.json\nguides\nindex.mdx\ninternal\ntmp\nzh\n");
    expect(await run("echo x > /dev/other")).toMatchObject({ exitCode: 1 });
  });

  it("keeps a private writable /tmp per session", async () => {
    expect(
      await run("echo draft > /tmp/note && cp /guides/deploy.md /tmp/ && cat /tmp/note && ls /tmp"),
    ).toEqual({
      stdout: "draft\ndeploy.md\nnote\n",
      stderr: "",
      exitCode: 0,
    });
    const other = await openDocsSession({ store, groups: ["staff"] });
    expect(await other.exec("ls /tmp")).toEqual({ stdout: "", stderr: "", exitCode: 0 });
    expect((await run("grep -rn Push /tmp /guides")).stdout).toBe(
      "/tmp/deploy.md:2:Push to main.\n/guides/deploy.md:2:Push to main.\n",
    );
  });

  it("treats odd paths as bash does", async () => {
    expect(await run("cat /guides/../index.mdx  | wc -l")).toMatchObject({ stdout: "6\n" });
    // A file is not a directory: a trailing slash (or `/.`) after it fails, as in bash.
    for (const path of ["/guides/../index.mdx//", "/index.mdx/", "/index.mdx/."]) {
      expect(await run(`cat ${path} | wc -l; test -e ${path} || echo absent`)).toMatchObject({
        stdout: "0\nabsent\n",
      });
      expect(await run(`ls ${path}`)).toMatchObject({ stdout: "", exitCode: 2 });
    }
    // A directory read as a file says so, in GNU's words (just-bash would say it does not exist).
    expect(await run("cat /guides")).toEqual({
      stdout: "",
      stderr: "cat: /guides: Is a directory\n",
      exitCode: 1,
    });
    expect(await run("cd / && head -1 guides; tail -n1 guides")).toEqual({
      stdout: "",
      stderr: "head: error reading 'guides': Is a directory\ntail: error reading 'guides': Is a directory\n",
      exitCode: 1,
    });
    expect(await run("cat /nope")).toEqual({
      stdout: "",
      stderr: "cat: /nope: No such file or directory\n",
      exitCode: 1,
    });
    expect(await run("cd /nope")).toMatchObject({ exitCode: 1 });
    expect(await run("cd /guides/.. && pwd")).toMatchObject({ stdout: "/\n", exitCode: 0 });
  });
});
