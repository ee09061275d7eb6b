import { spawn } from "node:child_process";
import { readdir, readFile, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:net";
import { join } from "node:path";
import { cosineSimilarity } from "@atrium/spec";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type ChromaServer,
  ChromaStartError,
  chromaEmbeddingFunction,
  connectChroma,
  hashingEmbedding,
  isChromaAlive,
  startChromaServer,
} from "../src/index.js";
import { closedPortUrl, isAlive, makeTempDir, spawnHost, waitForExit } from "./server-helpers.js";

async function writeRecord(dataDir: string, pid: number, url: string): Promise<void> {
  const port = Number(new URL(url).port);
  const record = { pid, host: "127.0.0.1", port, url, ownerPid: pid, startedAt: new Date().toISOString() };
  await writeFile(join(dataDir, "atrium-chroma.json"), JSON.stringify(record));
}

describe("startChromaServer", () => {
  let temp: Awaited<ReturnType<typeof makeTempDir>>;
  let server: ChromaServer;

  beforeAll(async () => {
    temp = await makeTempDir("atrium-chroma-server-");
    server = await startChromaServer({ path: join(temp.dir, "data") });
  });
  afterAll(async () => {
    await server?.stop();
    await temp?.remove();
  });

  it("serves the heartbeat on a loopback port and records itself in the data dir", async () => {
    expect(server.owned).toBe(true);
    expect(server.host).toBe("127.0.0.1");
    expect(server.url).toBe(`http://127.0.0.1:${server.port}`);
    expect(await isChromaAlive(server.url)).toBe(true);
    expect(isAlive(server.pid)).toBe(true);
    const info = JSON.parse(await readFile(join(temp.dir, "data", "atrium-chroma.json"), "utf8"));
    expect(info).toMatchObject({
      pid: server.pid,
      port: server.port,
      url: server.url,
      ownerPid: process.pid,
    });
  });

  it("keeps the server's output in a bounded ring and in a log file", async () => {
    expect(server.logs).toContain(`Saving data to: ${join(temp.dir, "data")}`);
    expect(server.logs.every((line) => !line.includes("\u001b["))).toBe(true);
    const logFile = await readFile(server.logFile, "utf8");
    expect(logFile).toContain(`starting Chroma on ${server.url} by pid ${process.pid}`);
    expect(logFile).toContain(`Saving data to: ${join(temp.dir, "data")}`);
  });

  it("reuses the running server for a second start on the same data dir", async () => {
    const second = await startChromaServer({ path: join(temp.dir, "data", ".", "") });
    expect(second).toMatchObject({ owned: false, pid: server.pid, url: server.url, port: server.port });
    await second.stop();
    expect(await isChromaAlive(server.url)).toBe(true);
  });

  it("gives a connectChroma client that reads and writes", async () => {
    const client = await connectChroma(server.url);
    expect(typeof (await client.heartbeat())).toBe("number");
    const collection = await client.createCollection({ name: "probe", embeddingFunction: null });
    await collection.add({ ids: ["a"], documents: ["alpha"], embeddings: [[1, 0, 0]] });
    expect((await collection.get({ ids: ["a"] })).documents).toEqual(["alpha"]);
  });

  it("embeds documents and query texts through a spec Embedding adapted for chromadb", async () => {
    const client = await connectChroma(server.url);
    const embedding = hashingEmbedding({ dimensions: 64 });
    const collection = await client.createCollection({
      name: "adapted",
      embeddingFunction: chromaEmbeddingFunction(embedding),
    });
    await collection.add({
      ids: ["pie", "domain"],
      documents: ["Grandma's apple pie needs cinnamon.", "Configure a custom domain for your docs."],
    });
    const stored = await collection.get({ ids: ["domain"], include: ["embeddings"] });
    const [expected] = await embedding.embed(["Configure a custom domain for your docs."]);
    // Stored as 32-bit floats: the same vector within float precision.
    expect(cosineSimilarity(stored.embeddings[0] ?? [], expected ?? [])).toBeGreaterThan(0.999999);
    const found = await collection.query({ queryTexts: ["custom domain"], nResults: 1 });
    expect(found.ids).toEqual([["domain"]]);
  });
});

describe("concurrent starts", () => {
  it("two simultaneous starts on one data dir make one server, the second reusing it", async () => {
    const temp = await makeTempDir("atrium-chroma-race-");
    try {
      const [first, second] = await Promise.all([
        startChromaServer({ path: temp.dir }),
        startChromaServer({ path: temp.dir }),
      ]);
      expect([first.owned, second.owned].sort()).toEqual([false, true]);
      expect(second.pid).toBe(first.pid);
      expect(second.url).toBe(first.url);
      const owner = first.owned ? first : second;
      await owner.stop();
      expect(await waitForExit(owner.pid, 8_000)).toBe(true);
    } finally {
      await temp.remove();
    }
  });
});

describe("startChromaServer failures", () => {
  it("names the port when an explicitly given port is taken", async () => {
    const temp = await makeTempDir("atrium-chroma-port-");
    const blocker: Server = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, "127.0.0.1", resolve));
    const port = (blocker.address() as { port: number }).port;
    try {
      const error = await startChromaServer({ path: temp.dir, port }).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(ChromaStartError);
      expect((error as ChromaStartError).code).toBe("UNAVAILABLE");
      expect((error as Error).message).toContain(`Port ${port} is already in use`);
      expect((error as Error).message).toContain(temp.dir);
    } finally {
      blocker.close();
      await temp.remove();
    }
  });

  it("stops a server that does not answer in time and says so, leaving no record behind", async () => {
    const temp = await makeTempDir("atrium-chroma-timeout-");
    try {
      // 1 ms is over before the first heartbeat probe returns: Node alone takes longer to start.
      const error = await startChromaServer({ path: temp.dir, startTimeoutMs: 1 }).catch(
        (caught: unknown) => caught,
      );
      expect(error).toBeInstanceOf(ChromaStartError);
      expect((error as Error).message).toMatch(
        new RegExp(
          `^The Chroma server for data dir ${temp.dir} did not answer http://127\\.0\\.0\\.1:\\d+/api/v2/heartbeat within 1 ms, so it was stopped\\. On a slow or busy machine pass a larger startTimeoutMs\\.`,
        ),
      );
      const left = await readdir(temp.dir);
      expect(left).toContain("chroma-server.log");
      expect(left.filter((name) => name.startsWith("atrium-chroma"))).toEqual([]);
    } finally {
      await temp.remove();
    }
  });

  it("replaces a record whose PID now belongs to an unrelated process (after a reboot)", async () => {
    const temp = await makeTempDir("atrium-chroma-recycled-");
    try {
      // This test process is alive, but it is no Chroma server on that dir.
      await writeRecord(temp.dir, process.pid, await closedPortUrl());
      const server = await startChromaServer({ path: temp.dir });
      try {
        expect(server.owned).toBe(true);
        expect(server.pid).not.toBe(process.pid);
      } finally {
        await server.stop();
      }
    } finally {
      await temp.remove();
    }
  });

  it("refuses to start next to a live server process on the dir that does not answer", async () => {
    const temp = await makeTempDir("atrium-chroma-hung-");
    // Stands in for a hung server: a live process whose command line names the data dir.
    const hung = spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)", "--", "--path", temp.dir], {
      stdio: "ignore",
    });
    try {
      await new Promise((resolve) => hung.once("spawn", resolve));
      const url = await closedPortUrl();
      await writeRecord(temp.dir, hung.pid!, url);
      await expect(startChromaServer({ path: temp.dir })).rejects.toThrow(
        `Process ${hung.pid} is registered as the Chroma server for ${temp.dir} (${url}) but does not answer its heartbeat. ` +
          "Starting a second server on the same files would corrupt them: stop that process, then try again.",
      );
    } finally {
      hung.kill("SIGKILL");
      await temp.remove();
    }
  });

  it("refuses a data dir that is a file", async () => {
    const temp = await makeTempDir("atrium-chroma-file-");
    const file = join(temp.dir, "not-a-dir");
    await writeFile(file, "x");
    try {
      await expect(startChromaServer({ path: file })).rejects.toThrow(
        `The Chroma data dir ${file} is not a usable directory`,
      );
    } finally {
      await temp.remove();
    }
  });
});

describe("no orphans", () => {
  it("stop() ends the server process and removes the info file", async () => {
    const temp = await makeTempDir("atrium-chroma-stop-");
    try {
      const server = await startChromaServer({ path: temp.dir });
      await server.stop();
      await server.stop();
      expect(isAlive(server.pid)).toBe(false);
      await expect(readFile(join(temp.dir, "atrium-chroma.json"), "utf8")).rejects.toThrow("ENOENT");
    } finally {
      await temp.remove();
    }
  });

  it("the server ends when its host is killed with SIGKILL, and the next start replaces the stale record", async () => {
    const temp = await makeTempDir("atrium-chroma-orphan-");
    try {
      const { host, server } = spawnHost(temp.dir);
      const { pid } = await server;
      expect(isAlive(pid)).toBe(true);
      host.kill("SIGKILL");
      expect(await waitForExit(pid, 8_000)).toBe(true);
      const next = await startChromaServer({ path: temp.dir });
      expect(next.owned).toBe(true);
      expect(next.pid).not.toBe(pid);
      await next.stop();
    } finally {
      await temp.remove();
    }
  });

  it("a host that also has signal-exit hooks (as with @atrium/mcp) still dies of SIGTERM, taking its server", async () => {
    const temp = await makeTempDir("atrium-chroma-signal-exit-");
    const { host, server } = spawnHost(temp.dir, "with-signal-exit");
    try {
      const { pid } = await server;
      const hostExit = new Promise((resolve) => host.once("exit", (code, signal) => resolve(signal ?? code)));
      host.kill("SIGTERM");
      expect(await hostExit).toBe("SIGTERM");
      expect(await waitForExit(pid, 8_000)).toBe(true);
    } finally {
      host.kill("SIGKILL");
      await temp.remove();
    }
  });

  it("the server ends when its host gets SIGTERM, and a second host on the same dir reuses it meanwhile", async () => {
    const temp = await makeTempDir("atrium-chroma-sigterm-");
    try {
      const first = spawnHost(temp.dir);
      const started = await first.server;
      const second = await startChromaServer({ path: temp.dir });
      expect(second).toMatchObject({ owned: false, pid: started.pid, url: started.url });
      const hostExit = new Promise((resolve) =>
        first.host.once("exit", (code, signal) => resolve(signal ?? code)),
      );
      first.host.kill("SIGTERM");
      expect(await hostExit).toBe("SIGTERM");
      expect(await waitForExit(started.pid, 8_000)).toBe(true);
    } finally {
      await temp.remove();
    }
  });
});
