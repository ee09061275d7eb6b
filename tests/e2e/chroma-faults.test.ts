// `atrium-docs mcp --http --path DIR` as a real child process, owning its embedded Chroma server,
// while several MCP sessions load it and the Chroma child is killed with SIGKILL (issue 11, item
// 1). Every answer is compared byte for byte with one session's answers before the kill: it is
// either exactly right or an error naming the store, never a wrong answer; /health says what is
// happening; within 10 s the same sessions of the same server answer right again. Loopback only,
// bounded in count and time, correctness only (no timing thresholds beyond the 10 s).
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { startChromaServer } from "@atrium/chroma";
import { ingestDocs } from "@atrium/chromafs";
import { McpClient } from "@atrium/mcp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AtriumDocsMcp, startAtriumDocsMcp, stopAtriumDocsMcp } from "./atrium-docs-mcp.js";

/** 24 pages in 4 sections; a third mention OpenAPI, every other one holds an API key line. */
function corpus(): Record<string, string> {
  const pages: Record<string, string> = {};
  for (let section = 0; section < 4; section++) {
    for (let page = 0; page < 6; page++) {
      const n = section * 6 + page;
      const lines = [`# Page ${n}`, `Section ${section}, page ${page}.`];
      if (n % 3 === 0) lines.push(`Describe the API with an OpenAPI ${n} file.`);
      if (n % 2 === 0) lines.push(`Set the API key ${n} in settings.`);
      lines.push(`Footer ${n}.`);
      pages[`section-${section}/page-${page}.md`] = `${lines.join("\n")}\n`;
    }
  }
  return pages;
}

/** Commands that all need the store (grep, search, unread pages) and one that needs only the tree. */
const BASH_COMMANDS = [
  "grep -rl OpenAPI / | wc -l",
  'grep -rn "API key" / | head -5',
  "grep -rc Footer /section-1",
  'search "API key" | wc -l',
  "cat /section-3/page-5.md /section-2/page-4.md | wc -l",
  "ls /section-0 | wc -l",
];
const MAX_CALLS_PER_SESSION = 400;
const SESSIONS = 4;

type Answer = { isError: boolean; text: string };

async function ask(client: McpClient, index: number): Promise<Answer> {
  const result =
    index < BASH_COMMANDS.length
      ? await client.callTool("bash", { command: BASH_COMMANDS[index] as string })
      : await client.callTool("search", { query: "OpenAPI file" });
  const content = result.content as { type: string; text?: string }[];
  return { isError: result.isError === true, text: content.map((part) => part.text ?? "").join("") };
}
const CALLS = BASH_COMMANDS.length + 1;

describe("atrium-docs mcp --http while its Chroma server is killed", () => {
  let base: string;
  let dataDir: string;
  let server: AtriumDocsMcp;

  beforeAll(async () => {
    base = mkdtempSync(join(tmpdir(), "atrium-e2e-chroma-faults-"));
    for (const [path, text] of Object.entries(corpus())) {
      mkdirSync(dirname(join(base, "docs", path)), { recursive: true });
      writeFileSync(join(base, "docs", path), text);
    }
    dataDir = join(base, "chroma");
    // Ingest on a server of our own, then stop it: the MCP server starts (and so owns) the next one.
    const ingestServer = await startChromaServer({ path: dataDir });
    try {
      await ingestDocs({ dir: join(base, "docs"), collection: "docs", url: ingestServer.url });
    } finally {
      await ingestServer.stop();
    }
    server = await startAtriumDocsMcp(["--path", dataDir, "--collection", "docs", "--http", "--no-auth"]);
  }, 90_000);

  afterAll(async () => {
    try {
      await stopAtriumDocsMcp(server, "SIGTERM");
    } finally {
      if (base) rmSync(base, { recursive: true, force: true });
    }
  }, 30_000);

  type Health = {
    ok: boolean;
    store: string;
    chroma: { url: string; pid: number; state: string; restarts: number };
  };
  const health = async () => {
    const response = await fetch(new URL("/health", server.url));
    return { status: response.status, body: (await response.json()) as Health };
  };

  it("answers every call right or with an error naming the store, and recovers within 10 s", async () => {
    const before = await health();
    expect(before.status).toBe(200);
    const chroma = before.body.chroma;
    expect(chroma).toMatchObject({ state: "up", restarts: 0 });
    const record = JSON.parse(readFileSync(join(dataDir, "atrium-chroma.json"), "utf8"));
    expect(record).toMatchObject({ pid: chroma.pid, url: chroma.url, ownerPid: server.child.pid });

    // One session's answers, before any fault, are the truth.
    const single = await McpClient.connect("single", { type: "http", url: server.url });
    const truth: Answer[] = [];
    for (let index = 0; index < CALLS; index++) truth.push(await ask(single, index));
    await single.close();
    expect(truth.every((answer) => !answer.isError)).toBe(true);
    expect(JSON.parse(truth[0]!.text)).toEqual({ stdout: "8\n", stderr: "", exitCode: 0 });

    const clients = await Promise.all(
      Array.from({ length: SESSIONS }, (_, n) =>
        McpClient.connect(`load-${n}`, { type: "http", url: server.url }),
      ),
    );
    const storeError = `the docs store (Chroma at ${chroma.url}, collection docs) cannot be reached`;
    const tally = { right: 0, storeErrors: 0, wrong: [] as { call: number; answer: Answer }[] };
    let stop = false;
    const load = clients.map(async (client, n) => {
      for (let call = n; call < n + MAX_CALLS_PER_SESSION && !stop; call++) {
        const index = call % CALLS;
        const answer = await ask(client, index);
        if (answer.text === truth[index]!.text && !answer.isError) tally.right++;
        else if (answer.isError && answer.text.includes(storeError)) tally.storeErrors++;
        else tally.wrong.push({ call: index, answer });
      }
    });
    try {
      await sleep(300);
      const killedAt = Date.now();
      process.kill(chroma.pid, "SIGKILL");
      // Health leaves "up" (503) and comes back (200), on the same URL, within 10 s.
      let sawOutage = false;
      let restored: Awaited<ReturnType<typeof health>> | undefined;
      while (Date.now() - killedAt < 10_000) {
        const now = await health();
        if (now.status === 503) sawOutage = true;
        if (now.status === 200 && now.body.chroma.pid !== chroma.pid) {
          restored = now;
          break;
        }
        await sleep(50);
      }
      expect(restored?.body.chroma).toMatchObject({ state: "up", url: chroma.url, restarts: 1 });
      expect(sawOutage || tally.storeErrors > 0).toBe(true);
      await sleep(500);
    } finally {
      stop = true;
      await Promise.all(load);
    }
    expect(tally.wrong).toEqual([]);
    expect(tally.storeErrors).toBeGreaterThan(0);
    expect(tally.right).toBeGreaterThan(0);

    // The same sessions of the same server answer exactly as before.
    for (const client of clients) {
      for (let index = 0; index < CALLS; index++) expect(await ask(client, index)).toEqual(truth[index]);
    }
    await Promise.all(clients.map((client) => client.close()));
    expect(server.child.exitCode).toBeNull();
    expect(server.stderr()).toContain(
      `the server (pid ${chroma.pid}) was killed by SIGKILL; restarting it in 100 ms`,
    );
    expect(server.stderr()).toContain(`restarted on ${chroma.url}`);
  }, 90_000);
});
