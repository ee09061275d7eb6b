import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { docsBashTool } from "../src/agent/docs-bash-tool.js";
import { docsSearchTool } from "../src/agent/docs-search-tool.js";
import { DEFAULT_CHROMAFS_LIMITS } from "../src/limits.js";
import { type CommandResult, openDocsSession } from "../src/session/docs-session.js";
import { LocalFolderStore } from "../src/store/local-folder-store.js";
import { type SmallDocsDir, writeSmallDocs } from "./fixtures/small-docs.js";

const context = () => ({ signal: new AbortController().signal });
const HUGE_LINE = `${"x".repeat(99)}\n`;

describe("agent tools", () => {
  let dir: SmallDocsDir;
  let store: LocalFolderStore;

  beforeAll(() => {
    dir = writeSmallDocs({ "big/huge.md": HUGE_LINE.repeat(30_000) });
    store = new LocalFolderStore(dir.root);
  });
  afterAll(() => dir.remove());

  it("bash runs a command in the session and returns stdout, stderr and exit code", async () => {
    const tool = docsBashTool(await openDocsSession({ store, groups: ["staff"] }));
    expect(tool.name).toBe("bash");
    expect(tool.inputSchema).toMatchObject({ type: "object", required: ["command"] });
    expect(await tool.execute({ command: "grep -rn Falcon /internal" }, context())).toEqual({
      stdout: "/internal/roadmap.md:5:Project Falcon ships in Q3.\n",
      stderr: "",
      exitCode: 0,
    });
    expect(await tool.execute({ command: "cat /nope.md" }, context())).toEqual({
      stdout: "",
      stderr: "cat: /nope.md: No such file or directory\n",
      exitCode: 1,
    });
  });

  it("keeps the working directory and /tmp across calls of one session", async () => {
    const tool = docsBashTool(await openDocsSession({ store }));
    await tool.execute({ command: "cd /guides && echo kept > /tmp/note" }, context());
    expect(await tool.execute({ command: "ls && cat /tmp/note" }, context())).toEqual({
      stdout: "deploy.md\nquickstart.md\nkept\n",
      stderr: "",
      exitCode: 0,
    });
  });

  it("bounds huge output and says how to narrow it", async () => {
    const tool = docsBashTool(await openDocsSession({ store }));
    const result = (await tool.execute({ command: "cat /big/huge.md" }, context())) as CommandResult;
    const note = `\n[output truncated: 3000000 bytes, showing the first ${DEFAULT_CHROMAFS_LIMITS.maxToolOutputBytes}; narrow the command (head, grep -m, wc)]\n`;
    expect(result.stdout).toBe(
      HUGE_LINE.repeat(30_000).slice(0, DEFAULT_CHROMAFS_LIMITS.maxToolOutputBytes) + note,
    );
    expect(result.exitCode).toBe(0);
    expect(await tool.execute({ command: "wc -c /big/huge.md" }, context())).toMatchObject({
      stdout: "3000000 /big/huge.md\n",
    });
  });

  it("rejects bad input naming the field", () => {
    const tool = docsBashTool(async () => openDocsSession({ store }));
    expect(tool.validate?.({ command: "" })).toMatchObject({ ok: false, issues: [{ path: ["command"] }] });
    expect(tool.validate?.({})).toMatchObject({ ok: false, issues: [{ path: ["command"] }] });
    expect(tool.validate?.({ command: "ls" })).toEqual({ ok: true, value: { command: "ls" } });
  });

  it("a session factory gives every call a fresh session", async () => {
    const tool = docsBashTool(() => openDocsSession({ store }));
    await tool.execute({ command: "echo left > /tmp/x" }, context());
    expect(await tool.execute({ command: "ls /tmp" }, context())).toEqual({
      stdout: "",
      stderr: "",
      exitCode: 0,
    });
  });

  it("search returns path and snippet lines of visible pages only", async () => {
    expect(await docsSearchTool(store, { groups: [] }).execute({ query: "Falcon" }, context())).toBe(
      "no matches\n",
    );
    expect(await docsSearchTool(store, { groups: ["staff"] }).execute({ query: "Falcon" }, context())).toBe(
      "/internal/roadmap.md: Project Falcon ships in Q3.\n",
    );
  });
});
