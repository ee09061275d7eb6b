import { readFile } from "node:fs/promises";
import { createServer, type Server, type Socket } from "node:net";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  type ChromaServer,
  type ChromaServerEvent,
  connectChroma,
  isChromaAlive,
  startChromaServer,
} from "../src/index.js";
import { isAlive, makeTempDir, waitForExit } from "./server-helpers.js";

/** Polls until `check` holds; false after `timeoutMs`. */
async function eventually(check: () => boolean | Promise<boolean>, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return true;
    await sleep(50);
  }
  return check();
}

async function readRecord(dataDir: string) {
  return JSON.parse(await readFile(join(dataDir, "atrium-chroma.json"), "utf8"));
}

describe("a supervised Chroma server", () => {
  let temp: Awaited<ReturnType<typeof makeTempDir>>;
  let server: ChromaServer | undefined;
  let dataDir: string;

  beforeEach(async () => {
    temp = await makeTempDir("atrium-chroma-supervision-");
    dataDir = join(temp.dir, "data");
  });
  afterEach(async () => {
    await server?.stop();
    server = undefined;
    await temp.remove();
  });

  it("is restarted on the same port after SIGKILL, with its data, its record and its health updated", async () => {
    server = await startChromaServer({ path: dataDir });
    const events: ChromaServerEvent[] = [];
    server.onEvent((event) => events.push(event));
    const client = await connectChroma(server.url);
    const collection = await client.createCollection({ name: "kept", embeddingFunction: null });
    await collection.add({ ids: ["a"], documents: ["alpha"], embeddings: [[1, 0, 0]] });
    const { url, port, pid } = server;
    expect(server.health()).toMatchObject({ state: "up", url, pid, restarts: 0 });

    process.kill(pid, "SIGKILL");
    expect(await eventually(() => server?.health().state === "restarting", 5_000)).toBe(true);
    expect(server.health().lastError).toBe(`the server (pid ${pid}) was killed by SIGKILL`);
    expect(await eventually(() => server?.health().state === "up", 10_000)).toBe(true);

    expect(server.url).toBe(url);
    expect(server.port).toBe(port);
    expect(server.pid).not.toBe(pid);
    expect(isAlive(server.pid)).toBe(true);
    expect(server.health()).toMatchObject({ state: "up", url, pid: server.pid, restarts: 1 });
    expect(await readRecord(dataDir)).toMatchObject({ pid: server.pid, url, port, ownerPid: process.pid });
    // The client made before the crash works again, on the same collection and data.
    expect((await collection.get({ ids: ["a"] })).documents).toEqual(["alpha"]);
    expect(events.map((event) => [event.type, event.message])).toEqual([
      [
        "exited",
        `Chroma server for ${dataDir}: the server (pid ${pid}) was killed by SIGKILL; restarting it in 100 ms`,
      ],
      ["restarted", `Chroma server for ${dataDir} restarted on ${url}, pid ${server.pid}`],
    ]);
    const log = await readFile(server.logFile, "utf8");
    expect(log).toContain(`restarting it in 100 ms\n`);
    expect(log).toContain(`restarted on ${url}, pid ${server.pid}\n`);

    const restarted = server.pid;
    await server.stop();
    expect(await waitForExit(restarted, 10_000)).toBe(true);
    server = undefined;
  }, 60_000);

  it("moves to a free port when its own was taken meanwhile, and a reuser finds it through the record", async () => {
    server = await startChromaServer({ path: dataDir, restartLimits: { minRestartBackoffMs: 500 } });
    const reuser = await startChromaServer({ path: dataDir });
    expect(reuser.owned).toBe(false);
    const { url, port, pid } = server;
    process.kill(pid, "SIGKILL");
    await waitForExit(pid, 5_000);
    // Take the port before the restart (500 ms back-off) can.
    const sockets = new Set<Socket>();
    const squatter: Server = createServer((socket) => {
      sockets.add(socket);
      socket.destroy();
    });
    await new Promise<void>((resolve) => squatter.listen(port, "127.0.0.1", resolve));
    try {
      const up = await eventually(() => server?.health().state === "up", 15_000);
      expect(server.health()).toMatchObject({ state: "up" });
      expect(up).toBe(true);
      expect(server.port).not.toBe(port);
      expect(await isChromaAlive(server.url)).toBe(true);
      expect(reuser.url).toBe(url);
      expect(await reuser.refresh()).toMatchObject({
        state: "up",
        url: server.url,
        pid: server.pid,
        restarts: 1,
      });
      expect(reuser.url).toBe(server.url);
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => squatter.close(resolve));
    }
  }, 60_000);

  it("gives up after too many quick failures, with an error saying so", async () => {
    server = await startChromaServer({
      path: dataDir,
      restartLimits: { maxServerRestarts: 1, minRestartBackoffMs: 50 },
    });
    const down = new Promise<ChromaServerEvent>((resolve) =>
      server?.onEvent((event) => event.type === "down" && resolve(event)),
    );
    const first = server.pid;
    process.kill(first, "SIGKILL");
    expect(
      await eventually(() => server?.health().restarts === 1 && server.health().state === "up", 10_000),
    ).toBe(true);
    const second = server.pid;
    process.kill(second, "SIGKILL");
    const event = await down;
    const expected =
      `the Chroma server for ${dataDir} failed 2 times within 60000 ms (last: the server (pid ${second}) was killed by SIGKILL), ` +
      `so it is not restarted again; see ${join(dataDir, "chroma-server.log")}, fix the cause and restart this process`;
    expect(event.message).toBe(expected);
    expect(server.health()).toMatchObject({ state: "down", restarts: 1, lastError: expected });
    await sleep(300);
    expect(server.health().state).toBe("down");
  }, 60_000);

  it("is only reported, not restarted, with supervise: false", async () => {
    server = await startChromaServer({ path: dataDir, supervise: false });
    const pid = server.pid;
    process.kill(pid, "SIGKILL");
    expect(await eventually(() => server?.health().state === "down", 5_000)).toBe(true);
    expect(server.health().lastError).toBe(
      `the server (pid ${pid}) was killed by SIGKILL; it is not supervised (supervise: false)`,
    );
  }, 30_000);
});
