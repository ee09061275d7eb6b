// A docs session whose embedded Chroma server is killed with SIGKILL: every command line either
// gives the answer it gave before the kill or fails naming the store (exit 2, no stdout), and
// once the supervised server is back the same session answers right again.
import { mkdtemp, rm } from "node:fs/promises";
import { createServer, type Server, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { type ChromaServer, startChromaServer } from "@atrium/chroma";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { docsBashTool } from "../src/agent/docs-bash-tool.js";
import { docsSearchTool } from "../src/agent/docs-search-tool.js";
import { StoreUnavailableError } from "../src/errors.js";
import { ingestDocs } from "../src/ingest/ingest-docs.js";
import { type DocsSession, openDocsSession } from "../src/session/docs-session.js";
import { ChromaDocStore } from "../src/store/chroma/chroma-doc-store.js";
import { type SmallDocsDir, writeSmallDocs } from "./fixtures/small-docs.js";

async function eventually(check: () => boolean, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline && !check()) await sleep(50);
  return check();
}

const COMMANDS = [
  "grep -rl API /",
  "grep -rl API / | wc -l",
  "grep -rn Falcon /",
  "grep -rc Push /",
  "cat /guides/quickstart.md",
  "head -2 /index.mdx",
  'search "API key"',
];

describe("a docs session while its Chroma server is killed", () => {
  let root: string;
  let docs: SmallDocsDir;
  let server: ChromaServer | undefined;

  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), "chromafs-outage-"));
    docs = writeSmallDocs();
  });
  afterEach(async () => {
    await server?.stop();
    server = undefined;
    docs.remove();
    await rm(root, { recursive: true, force: true });
  });

  /** A server whose restart waits `backoffMs` (so the outage is long enough to observe), a store and a session on it. */
  async function open(backoffMs: number) {
    server = await startChromaServer({
      path: join(root, "chroma"),
      restartLimits: { minRestartBackoffMs: backoffMs },
    });
    await ingestDocs({ dir: docs.root, collection: "docs", url: server.url });
    const store = await ChromaDocStore.open({
      url: server.url,
      server,
      collection: "docs",
      // Every command reads the tree digest, so grep's cached answers need the server too.
      treeRecheckMs: 0,
    });
    const session = await openDocsSession({ store, groups: ["staff"], pageCacheBytes: 1_000_000 });
    return { store, session };
  }

  async function answers(session: DocsSession): Promise<string[]> {
    const results: string[] = [];
    for (const command of COMMANDS) results.push(JSON.stringify(await session.exec(command)));
    return results;
  }

  it("fails every command that needs the store, naming it, and answers right again after the restart", async () => {
    const { store, session } = await open(3_000);
    // Only one page is read before the kill: it stays readable from the cache.
    expect((await session.exec("cat /guides/deploy.md")).stdout).toBe(
      "# Deploy\nPush to main.\nerror: none\n",
    );
    const fresh = await openDocsSession({ store, groups: ["staff"], pageCacheBytes: 1_000_000 });
    const before = await answers(fresh);
    expect(JSON.parse(before[1] as string)).toEqual({ stdout: "4\n", stderr: "", exitCode: 0 });

    const alive = server as ChromaServer;
    const { url, pid } = alive;
    process.kill(pid, "SIGKILL");
    expect(await eventually(() => alive.health().state === "restarting", 5_000)).toBe(true);

    const named = `the docs store (Chroma at ${url}, collection docs) cannot be reached: no Chroma server answers there; try again`;
    const down = (line: string) => ({ stdout: "", stderr: `${line}\n`, exitCode: 2 });
    expect(await session.exec("grep -rl API /")).toMatchObject(down(`grep: ${named}`));
    expect(await session.exec("grep -rl API / | wc -l")).toMatchObject(down(`grep: ${named}`));
    expect(await session.exec("grep -rv x /guides")).toMatchObject(
      down(`grep: /guides/quickstart.md: ${named}`),
    );
    expect(await session.exec("cat /guides/quickstart.md")).toMatchObject(
      down(`cat: /guides/quickstart.md: ${named}`),
    );
    // The command's own message went to /dev/null, so the line names the shell; no fallback runs as if the page were missing.
    expect(await session.exec("cat /guides/quickstart.md 2>/dev/null || echo fallback")).toMatchObject(
      down(`bash: /guides/quickstart.md: ${named}`),
    );
    expect(await session.exec('search "API key"')).toMatchObject(down(`search: ${named}`));
    // What needs no store still answers: the tree and the page already read.
    expect(await session.exec("ls /guides; cat /guides/deploy.md")).toEqual({
      stdout: "deploy.md\nquickstart.md\n# Deploy\nPush to main.\nerror: none\n",
      stderr: "",
      exitCode: 0,
    });
    // The agent tools: an error, never an answer, and never chromadb's browser advice.
    const bash = docsBashTool(session);
    const signal = new AbortController().signal;
    await expect(bash.execute({ command: "cat /index.mdx" }, { signal } as never)).rejects.toThrow(
      new StoreUnavailableError(`Chroma at ${url}, collection docs`, "no Chroma server answers there", {
        context: "cat: /index.mdx: ",
      }),
    );
    const search = docsSearchTool(store, session.access);
    const searchError = await search
      .execute({ query: "API key" }, { signal } as never)
      .catch((e: Error) => e);
    expect(searchError).toBeInstanceOf(StoreUnavailableError);
    expect((searchError as Error).message).toBe(named);
    expect((searchError as Error).message).not.toContain("CORS");

    // Back within 10 s, on the same URL, without reopening anything.
    expect(await eventually(() => alive.health().state === "up", 10_000)).toBe(true);
    expect(alive.url).toBe(url);
    expect(await answers(session)).toEqual(before);
  }, 60_000);

  it("follows its server to another port when the old one was taken during the restart", async () => {
    const { store, session } = await open(500);
    const before = await answers(session);
    const alive = server as ChromaServer;
    const { port, pid } = alive;
    process.kill(pid, "SIGKILL");
    await eventually(() => alive.health().state === "restarting", 5_000);
    const sockets = new Set<Socket>();
    const squatter: Server = createServer((socket) => {
      sockets.add(socket);
      socket.destroy();
    });
    await new Promise<void>((resolve) => squatter.listen(port, "127.0.0.1", resolve));
    try {
      expect(await eventually(() => alive.health().state === "up", 15_000)).toBe(true);
      expect(alive.port).not.toBe(port);
      expect(await answers(session)).toEqual(before);
      // A new session reads every page afresh, from the server's new address.
      const fresh = await openDocsSession({ store, groups: ["staff"], pageCacheBytes: 1_000_000 });
      expect(await answers(fresh)).toEqual(before);
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => squatter.close(resolve));
    }
  }, 60_000);
});
