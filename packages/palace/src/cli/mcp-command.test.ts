import { type ChildProcess, spawn } from "node:child_process";
import { chmod, mkdtemp, rm, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { type ChromaServer, startChromaServer } from "@atrium/chroma";
import { McpClient } from "@atrium/mcp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cliArgs } from "../../../../tests/test-target.ts";
import { openPalace } from "../open-palace.js";

const PACKAGE_DIR = fileURLToPath(new URL("../..", import.meta.url));
const CLI = cliArgs(PACKAGE_DIR);
const require = createRequire(import.meta.url);
const INSPECTOR = join(
  dirname(require.resolve("@modelcontextprotocol/inspector-cli/package.json")),
  "build/cli.js",
);
// Every step starts Node processes that load the palace (and the Inspector): seconds each here.
const TEST_MS = 240_000;

const TOOL_NAMES = [
  "status",
  "list_wings",
  "list_rooms",
  "get_taxonomy",
  "search",
  "check_duplicate",
  "recall",
  "remember",
  "add_drawer",
  "get_drawer",
  "list_drawers",
  "update_drawer",
  "delete_drawer",
  "kg_query",
  "kg_add",
  "kg_invalidate",
  "kg_timeline",
  "kg_stats",
  "traverse",
  "find_tunnels",
  "create_tunnel",
  "list_tunnels",
  "delete_tunnel",
  "follow_tunnels",
  "diary_write",
  "diary_read",
  "wake_up",
];

const NOTE = "The lighthouse keeper logs the tide every morning at six.";

describe("atrium-palace mcp", { timeout: TEST_MS }, () => {
  let root: string;
  let server: ChromaServer;
  let palaceDir: string;
  let noteId: string;
  let env: Record<string, string>;

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), "atrium-palace-mcp-"));
    server = await startChromaServer({ path: join(root, "chroma") });
    palaceDir = join(root, "palace");
    env = { ATRIUM_CHROMA_URL: server.url, ATRIUM_PALACE: "" };
    const palace = await openPalace(palaceDir, { create: true, chromaUrl: server.url });
    try {
      const [filed] = await palace.file([
        { content: NOTE, wing: "coast", room: "tides", timestamp: "2024-02-01T06:00:00.000Z" },
        { content: "The ferry to the island leaves at noon.", wing: "coast", room: "travel" },
      ]);
      noteId = filed?.id as string;
    } finally {
      await palace.close();
    }
  });

  afterAll(async () => {
    await server?.stop();
    await rm(root, { recursive: true, force: true });
  });

  /** The Inspector CLI's JSON answer for one method, against `target`. */
  async function inspect(target: string[], method: string[]): Promise<unknown> {
    const child = spawn(process.execPath, [INSPECTOR, "--cli", ...target, ...method], {
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, ...env },
      timeout: TEST_MS - 20_000,
      killSignal: "SIGKILL",
    });
    let out = "";
    let err = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (out += chunk));
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (err += chunk));
    const code = await new Promise((resolve) => child.once("exit", resolve));
    if (code !== 0) throw new Error(`inspector exited with ${code}: ${err}`);
    return JSON.parse(out);
  }

  const searchCall = [
    "--method",
    "tools/call",
    "--tool-name",
    "search",
    "--tool-arg",
    "query=lighthouse tide",
    "k=1",
  ];

  function expectLighthouseHit(result: unknown) {
    const { content, structuredContent } = result as {
      content: { type: string; text: string }[];
      structuredContent: { hits: { id: string; content: string; wing: string; room: string }[] };
    };
    expect(
      structuredContent.hits.map(({ id, content, wing, room }) => ({ id, content, wing, room })),
    ).toEqual([{ id: noteId, content: NOTE, wing: "coast", room: "tides" }]);
    expect(content).toEqual([{ type: "text", text: JSON.stringify(structuredContent) }]);
  }

  it("serves every tool over stdio to the MCP SDK client", async () => {
    const client = await McpClient.connect(
      "palace",
      { command: process.execPath, args: [...CLI, "mcp", "--palace", palaceDir], cwd: PACKAGE_DIR, env },
      { connectTimeoutMs: TEST_MS - 60_000, callTimeoutMs: 60_000 },
    );
    try {
      expect((await client.listTools()).map((tool) => tool.name)).toEqual(TOOL_NAMES);
      expect((await client.callTool("get_drawer", { id: noteId })).structuredContent).toMatchObject({
        drawer: { id: noteId, content: NOTE, wing: "coast", room: "tides" },
      });
      expect(await client.callTool("get_drawer", { id: 7 })).toEqual({
        content: [
          { type: "text", text: 'Invalid input for tool "get_drawer": id: must be text (a drawer id)' },
        ],
        isError: true,
      });
    } finally {
      await client.close();
    }
  });

  it("passes the MCP Inspector CLI over stdio", async () => {
    // The Inspector passes its own flags through; a script keeps the server's out of its way.
    const script = join(root, "serve-palace.sh");
    await writeFile(
      script,
      `#!/bin/sh\ncd '${PACKAGE_DIR}' && exec '${process.execPath}' ${CLI.map((arg) => `'${arg}'`).join(" ")} mcp --palace '${palaceDir}'\n`,
    );
    await chmod(script, 0o755);
    const listed = (await inspect([script], ["--method", "tools/list"])) as { tools: { name: string }[] };
    expect(listed.tools.map((tool) => tool.name)).toEqual(TOOL_NAMES);
    expectLighthouseHit(await inspect([script], searchCall));
  });

  it("passes the MCP Inspector CLI over streamable HTTP, and stops on SIGTERM", async () => {
    const child = spawn(
      process.execPath,
      [...CLI, "mcp", "--http", "--no-auth", "--admin", "--palace", palaceDir],
      {
        cwd: PACKAGE_DIR,
        env: { ...process.env, ...env },
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    try {
      const url = await firstLine(child);
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
      const target = [url, "--transport", "http"];
      const listed = (await inspect(target, ["--method", "tools/list"])) as { tools: { name: string }[] };
      expect(listed.tools.map((tool) => tool.name)).toEqual(TOOL_NAMES);
      expectLighthouseHit(await inspect(target, searchCall));
      expect(
        await inspect(target, [
          "--method",
          "tools/call",
          "--tool-name",
          "list_rooms",
          "--tool-arg",
          "wing=coast",
        ]),
      ).toEqual({
        content: [
          {
            type: "text",
            text: '{"wing":"coast","rooms":[{"wing":"coast","room":"tides","count":1},{"wing":"coast","room":"travel","count":1}]}',
          },
        ],
        structuredContent: {
          wing: "coast",
          rooms: [
            { wing: "coast", room: "tides", count: 1 },
            { wing: "coast", room: "travel", count: 1 },
          ],
        },
      });
      expect(
        await inspect(target, ["--method", "tools/call", "--tool-name", "search", "--tool-arg", "k=3"]),
      ).toEqual({
        content: [
          {
            type: "text",
            text: 'Invalid input for tool "search": query: must be text (what to look for, in words)',
          },
        ],
        isError: true,
      });
    } finally {
      child.kill("SIGTERM");
    }
    expect(await new Promise((resolve) => child.once("exit", resolve))).toBe(0);
  });
});

/** The first line a child prints on stdout (the HTTP server's URL). */
function firstLine(child: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    let out = "";
    let err = "";
    child.stderr?.setEncoding("utf8").on("data", (chunk: string) => (err += chunk));
    child.stdout?.setEncoding("utf8").on("data", (chunk: string) => {
      out += chunk;
      const end = out.indexOf("\n");
      if (end >= 0) resolve(out.slice(0, end));
    });
    child.once("exit", (code) => reject(new Error(`atrium-palace mcp exited with ${code}: ${err}`)));
  });
}
