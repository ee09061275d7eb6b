// A pooled docs session whose embedded Chroma server is SIGKILLed and comes back on another port:
// the worker's own store client fails each command that needs the store the way an in-process
// session does, then follows the server (asking the host, which holds the server object).
import { mkdtemp, rm } from "node:fs/promises";
import { createServer, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { type ChromaServer, startChromaServer } from "@atrium/chroma";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { StoreUnavailableError } from "../src/errors.js";
import { ingestDocs } from "../src/ingest/ingest-docs.js";
import { SessionWorkerPool } from "../src/session-pool/session-worker-pool.js";
import { ChromaDocStore } from "../src/store/chroma/chroma-doc-store.js";
import { type SmallDocsDir, writeSmallDocs } from "./fixtures/small-docs.js";

async function eventually(check: () => boolean, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline && !check()) await sleep(50);
  return check();
}

const COMMANDS = ["grep -rl API /", "grep -rn Falcon /", "cat /guides/quickstart.md", 'search "API key"'];

describe("a pooled docs session while its Chroma server is killed", () => {
  let root: string;
  let docs: SmallDocsDir;
  let server: ChromaServer | undefined;
  let pool: SessionWorkerPool | undefined;

  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), "chromafs-pool-outage-"));
    docs = writeSmallDocs();
  });
  afterEach(async () => {
    await pool?.close();
    await server?.stop();
    docs.remove();
    await rm(root, { recursive: true, force: true });
  });

  it("fails commands naming the store, then follows the server to its new port", async () => {
    server = await startChromaServer({
      path: join(root, "chroma"),
      restartLimits: { minRestartBackoffMs: 2_000 },
    });
    await ingestDocs({ dir: docs.root, collection: "docs", url: server.url });
    const store = await ChromaDocStore.open({
      url: server.url,
      server,
      collection: "docs",
      // Every command reads the tree digest, so grep's cached answers need the server too.
      treeRecheckMs: 0,
    });
    pool = await SessionWorkerPool.start({ store, limits: { poolWorkers: 1 } });
    const session = await pool.openSession({ groups: ["staff"] });
    const before = [];
    for (const command of COMMANDS) before.push(await session.exec(command));
    expect(before[1]).toEqual({
      stdout: "/internal/roadmap.md:5:Project Falcon ships in Q3.\n",
      stderr: "",
      exitCode: 0,
    });

    const alive = server;
    const { url, port, pid } = alive;
    process.kill(pid, "SIGKILL");
    expect(await eventually(() => alive.health().state === "restarting", 5_000)).toBe(true);
    // Someone takes the port meanwhile, so the restart lands elsewhere.
    const sockets = new Set<Socket>();
    const squatter = createServer((socket) => {
      sockets.add(socket);
      socket.destroy();
    });
    await new Promise<void>((resolve) => squatter.listen(port, "127.0.0.1", resolve));
    try {
      const down = await session.exec("grep -rl API /");
      const named = `the docs store (Chroma at ${url}, collection docs) cannot be reached`;
      expect(down).toMatchObject({ stdout: "", exitCode: 2 });
      expect(down.stderr).toMatch(new RegExp(`^grep: ${named.replace(/[()]/g, "\\$&")}: .+; try again\n$`));
      expect(down.storeUnavailable).toBeInstanceOf(StoreUnavailableError);
      expect(`${down.storeUnavailable?.message}\n`).toBe(down.stderr);

      expect(await eventually(() => alive.health().state === "up", 15_000)).toBe(true);
      expect(alive.port).not.toBe(port);
      const after = [];
      for (const command of COMMANDS) after.push(await session.exec(command));
      expect(after).toEqual(before);
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => squatter.close(resolve));
    }
  }, 60_000);
});
