// `atrium-docs mcp --http --tokens-file` as a real child process under the faults of issue 11:
// clients without a valid token, two identities in one server, concurrent sessions against one
// session's answers, 200 clients of ten identities that vanish mid-call, and SIGTERM with calls
// in flight. Loopback only, bounded in count and time, correctness only (no timing thresholds).
import { createHash } from "node:crypto";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { McpClient } from "@atrium/mcp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AtriumDocsMcp, startAtriumDocsMcp, stopAtriumDocsMcp } from "./atrium-docs-mcp.js";

const PAGES: Record<string, string> = {
  "index.mdx": "# Welcome\nStart with the quickstart.\nThe API key lives in settings.\n",
  "guides/quickstart.md": "# Quickstart\nInstall the CLI.\nSet the API key.\n",
  "guides/deploy.md": "# Deploy\nPush to main.\n",
  "internal/roadmap.md":
    "---\ngroups: [staff]\n---\n# Roadmap\nProject Falcon ships in Q3.\nThe API key rotates.\n",
  "internal/welcome.md": "# Staff welcome\nThis page is public even inside internal/.\n",
};

const STAFF_TOKEN = "staff-e2e-token-0123456789abcdef";
const GUEST_TOKEN = "guest-e2e-token-0123456789abcdef";
/** Ten identities whose clients vanish: each under its quota of 16 sessions, together past the server's 100. */
const VISITOR_TOKENS = Array.from({ length: 10 }, (_, i) => `visitor-${i}-e2e-token-0123456789abcdef`);
const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

const HEADERS = { "content-type": "application/json", accept: "application/json, text/event-stream" };
const INITIALIZE = {
  jsonrpc: "2.0",
  id: 0,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
};

/** The JSON-RPC messages of a response, whether it came as JSON or as an SSE stream. */
function messages(text: string): unknown[] {
  const data = text.split("\n").filter((line) => line.startsWith("data: "));
  return data.length > 0 ? data.map((line) => JSON.parse(line.slice(6))) : [JSON.parse(text)];
}

describe("atrium-docs mcp --http under faults", () => {
  let base: string;
  let server: AtriumDocsMcp;

  beforeAll(async () => {
    base = mkdtempSync(join(tmpdir(), "atrium-e2e-serving-"));
    for (const [path, text] of Object.entries(PAGES)) {
      mkdirSync(dirname(join(base, "docs", path)), { recursive: true });
      writeFileSync(join(base, "docs", path), text);
    }
    const tokens = {
      tokens: {
        [sha256(STAFF_TOKEN)]: { identity: "sam", groups: ["staff"] },
        [sha256(GUEST_TOKEN)]: { identity: "guest", groups: [] },
        ...Object.fromEntries(
          VISITOR_TOKENS.map((token, i) => [sha256(token), { identity: `visitor-${i}`, groups: [] }]),
        ),
      },
    };
    writeFileSync(join(base, "tokens.json"), JSON.stringify(tokens));
    server = await startAtriumDocsMcp([
      "--dir",
      join(base, "docs"),
      "--http",
      "--tokens-file",
      join(base, "tokens.json"),
    ]);
  }, 60_000);

  afterAll(async () => {
    try {
      await stopAtriumDocsMcp(server, "SIGKILL");
    } finally {
      if (base) rmSync(base, { recursive: true, force: true });
    }
  });

  const connect = (token: string) =>
    McpClient.connect("docs", {
      type: "http",
      url: server.url,
      headers: { authorization: `Bearer ${token}` },
    });

  it("answers a request without a valid token 401 and shows it nothing", async () => {
    const attempts: Record<string, string>[] = [{}, { authorization: "Bearer wrong-token-0123456789" }];
    for (const headers of attempts) {
      const response = await fetch(server.url, {
        method: "POST",
        headers: { ...HEADERS, ...headers },
        body: JSON.stringify(INITIALIZE),
      });
      expect(response.status).toBe(401);
      expect(response.headers.get("www-authenticate")).toMatch(/^Bearer realm="mcp"/);
      expect(response.headers.get("mcp-session-id")).toBeNull();
      expect(await response.text()).not.toContain("bash");
    }
    // A session id does not stand in for a token.
    const staff = await connect(STAFF_TOKEN);
    try {
      const listing = await fetch(server.url, {
        method: "POST",
        headers: { ...HEADERS, "mcp-session-id": "any" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
      });
      expect(listing.status).toBe(401);
      await listing.text();
    } finally {
      await staff.close();
    }
    await expect(connect("wrong-token-0123456789")).rejects.toThrow();
  });

  it("two tokens with different groups see different trees in one server", async () => {
    const staff = await connect(STAFF_TOKEN);
    const guest = await connect(GUEST_TOKEN);
    try {
      const command = { command: "find / -type f | sort; grep -rl Falcon /" };
      expect((await staff.callTool("bash", command)).structuredContent).toEqual({
        stdout:
          "/guides/deploy.md\n/guides/quickstart.md\n/index.mdx\n/internal/roadmap.md\n/internal/welcome.md\n/internal/roadmap.md\n",
        stderr: "",
        exitCode: 0,
      });
      expect((await guest.callTool("bash", command)).structuredContent).toEqual({
        stdout: "/guides/deploy.md\n/guides/quickstart.md\n/index.mdx\n/internal/welcome.md\n",
        stderr: "",
        exitCode: 1,
      });
    } finally {
      await staff.close();
      await guest.close();
    }
  });

  it("concurrent sessions answer byte for byte as one session does alone", async () => {
    const commands = [
      "grep -rn 'API key' / | sort",
      "cat /index.mdx /guides/quickstart.md | wc -l",
      "ls -R / | head -20",
      "echo $((6 * 7)) > /tmp/n; cat /tmp/n",
      "grep -c key /internal/roadmap.md",
      "find / -name '*.md' | sort | tail -2",
    ];
    const alone = await connect(STAFF_TOKEN);
    const expected: unknown[] = [];
    try {
      for (const command of commands)
        expected.push((await alone.callTool("bash", { command })).structuredContent);
    } finally {
      await alone.close();
    }
    const clients = await Promise.all(Array.from({ length: 8 }, () => connect(STAFF_TOKEN)));
    try {
      const answers = await Promise.all(
        clients.map(async (client) => {
          const got: unknown[] = [];
          for (const command of commands)
            got.push((await client.callTool("bash", { command })).structuredContent);
          return got;
        }),
      );
      for (const got of answers) expect(got).toEqual(expected);
    } finally {
      await Promise.all(clients.map((client) => client.close()));
    }
  });

  it("after 200 clients vanish mid-call without ending their sessions, a new client still connects", async () => {
    // Twenty at a time, two per identity: one identity holding 16 sessions, each with a request
    // open, gets 429 for a 17th (maxHttpSessionsPerIdentity), so a batch stays well under that.
    // From the sixth batch on the server's 100 sessions are full: every new session takes the
    // place of an older vanished one.
    const vanish = async (token: string) => {
      const init = await fetch(server.url, {
        method: "POST",
        headers: { ...HEADERS, authorization: `Bearer ${token}` },
        body: JSON.stringify(INITIALIZE),
      });
      expect(init.status).toBe(200);
      const session = init.headers.get("mcp-session-id")!;
      await init.text();
      const controller = new AbortController();
      const call = fetch(server.url, {
        method: "POST",
        headers: { ...HEADERS, authorization: `Bearer ${token}`, "mcp-session-id": session },
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 1,
          method: "tools/call",
          params: { name: "bash", arguments: { command: "sleep 20" } },
        }),
        signal: controller.signal,
      }).then((response) => response.text());
      await new Promise((resolve) => setTimeout(resolve, 20));
      controller.abort(); // gone: no DELETE, no cancellation sent
      await call.catch(() => {});
    };
    for (let batch = 0; batch < 10; batch++) {
      await Promise.all(Array.from({ length: 20 }, (_, i) => vanish(VISITOR_TOKENS[i % 10] as string)));
    }
    // Another identity, and one of those whose clients vanished.
    for (const token of [STAFF_TOKEN, VISITOR_TOKENS[0] as string]) {
      const newcomer = await connect(token);
      try {
        expect(
          (await newcomer.callTool("bash", { command: "head -1 /guides/deploy.md" })).structuredContent,
        ).toEqual({
          stdout: "# Deploy\n",
          stderr: "",
          exitCode: 0,
        });
      } finally {
        await newcomer.close();
      }
    }
  }, 120_000);

  it("on SIGTERM mid-load every call in flight gets a reply, then the server exits", async () => {
    const session = async () => {
      const init = await fetch(server.url, {
        method: "POST",
        headers: { ...HEADERS, authorization: `Bearer ${STAFF_TOKEN}` },
        body: JSON.stringify(INITIALIZE),
      });
      await init.text();
      return init.headers.get("mcp-session-id")!;
    };
    const call = async (command: string) => {
      const id = await session();
      const response = await fetch(server.url, {
        method: "POST",
        headers: { ...HEADERS, authorization: `Bearer ${STAFF_TOKEN}`, "mcp-session-id": id },
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 5,
          method: "tools/call",
          params: { name: "bash", arguments: { command } },
        }),
      });
      return messages(await response.text());
    };
    const quick = [1, 2, 3, 4, 5, 6].map((n) => call(`sleep 2; echo done ${n}`));
    const stuck = [1, 2].map(() => call("sleep 25; echo never"));
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    server.child.kill("SIGTERM");
    const done = (n: number) => [
      {
        jsonrpc: "2.0",
        id: 5,
        result: {
          content: [
            { type: "text", text: JSON.stringify({ stdout: `done ${n}\n`, stderr: "", exitCode: 0 }) },
          ],
          structuredContent: { stdout: `done ${n}\n`, stderr: "", exitCode: 0 },
        },
      },
    ];
    const shuttingDown = [
      {
        jsonrpc: "2.0",
        id: 5,
        error: {
          code: -32000,
          message: "The server is shutting down; the call did not finish within 10000 ms",
        },
      },
    ];
    expect(await Promise.all([...quick, ...stuck])).toEqual([
      ...[1, 2, 3, 4, 5, 6].map(done),
      shuttingDown,
      shuttingDown,
    ]);
    expect(await server.exited).toBe(0);
    await expect(fetch(server.url, { method: "POST", headers: HEADERS, body: "{}" })).rejects.toThrow();
  }, 60_000);
});
