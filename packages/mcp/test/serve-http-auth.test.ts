// Bearer-token authentication of serveMcpHttp (MCP authorization, resource-server role), and a
// tool set opened per session for the identity behind the token. Real SDK clients and raw
// requests over loopback.
import { ConfigError, type Tool } from "@atrium/spec";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hashToken, type McpIdentity, parseTokens, type ServedMcpHttp, serveMcpHttp } from "../src/index.js";
import { echo } from "./fixtures/sample-tools.js";

const ALICE = "alice-0123456789abcdef";
const BOB = "bob-0123456789abcdef";
const tokens = parseTokens(
  JSON.stringify({
    tokens: {
      [hashToken(ALICE)]: { identity: "alice", groups: ["staff"] },
      [hashToken(BOB)]: { identity: "bob", groups: [] },
    },
  }),
  "test tokens",
);

const opened: (string | undefined)[] = [];
const closed: (string | undefined)[] = [];

function whoami(identity: McpIdentity | undefined): Tool {
  return {
    name: "whoami",
    description: "Who the session belongs to",
    inputSchema: { type: "object", properties: {} },
    execute: async () =>
      identity ? `${identity.name} (${identity.groups.join(", ") || "no groups"})` : "anyone",
  };
}

let served: ServedMcpHttp;
beforeAll(async () => {
  served = await serveMcpHttp({
    name: "guarded",
    version: "1.0.0",
    auth: tokens,
    openSession(identity) {
      opened.push(identity?.name);
      return { tools: [whoami(identity)], close: async () => void closed.push(identity?.name) };
    },
  });
});
afterAll(async () => served?.close());

async function connect(token: string): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  const client = new Client({ name: "auth-test", version: "1.0.0" });
  const transport = new StreamableHTTPClientTransport(new URL(served.url), {
    requestInit: { headers: { authorization: `Bearer ${token}` } },
  });
  await client.connect(transport);
  return { client, transport };
}

const INITIALIZE = JSON.stringify({
  jsonrpc: "2.0",
  id: 0,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
});

async function post(headers: Record<string, string>, body = INITIALIZE) {
  const response = await fetch(served.url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      ...headers,
    },
    body,
  });
  return {
    status: response.status,
    challenge: response.headers.get("www-authenticate"),
    body: await response.text(),
  };
}

describe("bearer-token authentication", () => {
  it("answers a request without a valid token 401 with a Bearer challenge, and opens nothing", async () => {
    const sessionsBefore = served.sessionCount;
    expect(await post({})).toEqual({
      status: 401,
      challenge: 'Bearer realm="mcp"',
      body: '{"error":"unauthorized","error_description":"Send Authorization: Bearer <token>"}',
    });
    expect(await post({ authorization: "Bearer not-a-known-token" })).toEqual({
      status: 401,
      challenge: 'Bearer realm="mcp", error="invalid_token", error_description="Unknown bearer token"',
      body: '{"error":"invalid_token","error_description":"Unknown bearer token"}',
    });
    expect(await post({ authorization: `Basic ${ALICE}` })).toEqual({
      status: 401,
      challenge:
        'Bearer realm="mcp", error="invalid_token", error_description="The Authorization header must be \'Bearer <token>\'"',
      body: '{"error":"invalid_token","error_description":"The Authorization header must be \'Bearer <token>\'"}',
    });
    // The stored hash is not a token.
    expect((await post({ authorization: `Bearer ${hashToken(ALICE)}` })).status).toBe(401);
    expect(served.sessionCount).toBe(sessionsBefore);
    expect(opened).toEqual([]);
  });

  it("gives each session the tools opened for its token's identity, and closes them when it ends", async () => {
    const alice = await connect(ALICE);
    const bob = await connect(BOB);
    try {
      expect(opened).toEqual(["alice", "bob"]);
      expect(await alice.client.callTool({ name: "whoami", arguments: {} })).toEqual({
        content: [{ type: "text", text: "alice (staff)" }],
      });
      expect(await bob.client.callTool({ name: "whoami", arguments: {} })).toEqual({
        content: [{ type: "text", text: "bob (no groups)" }],
      });
      // Bob's token on Alice's session: the session stays hers.
      const hijack = await post(
        { authorization: `Bearer ${BOB}`, "mcp-session-id": alice.transport.sessionId! },
        JSON.stringify({ jsonrpc: "2.0", id: 9, method: "tools/call", params: { name: "whoami" } }),
      );
      expect(hijack).toEqual({
        status: 403,
        challenge: null,
        body: '{"jsonrpc":"2.0","error":{"code":-32000,"message":"This session belongs to another identity; initialize your own"},"id":null}',
      });
      await alice.transport.terminateSession();
      expect(closed).toEqual(["alice"]);
    } finally {
      await alice.client.close();
      await bob.transport.terminateSession();
      await bob.client.close();
    }
    expect(closed).toEqual(["alice", "bob"]);
  });
});

describe("serving without authentication", () => {
  it("is refused on a host that is not loopback", async () => {
    await expect(
      serveMcpHttp({ name: "open", version: "1.0.0", tools: [echo], host: "0.0.0.0" }),
    ).rejects.toThrow(
      new ConfigError(
        'serveMcpHttp: serving without authentication is allowed on loopback only, not on host "0.0.0.0"; pass auth (a tokens file) or serve on 127.0.0.1',
      ),
    );
  });

  it("gives openSession no identity", async () => {
    const open = await serveMcpHttp({
      name: "open",
      version: "1.0.0",
      openSession: (identity) => ({ tools: [whoami(identity)] }),
    });
    const client = new Client({ name: "open", version: "1.0.0" });
    try {
      await client.connect(new StreamableHTTPClientTransport(new URL(open.url)));
      expect(await client.callTool({ name: "whoami", arguments: {} })).toEqual({
        content: [{ type: "text", text: "anyone" }],
      });
    } finally {
      await client.close();
      await open.close();
    }
  });
});

describe("the per-identity session quota", () => {
  it("refuses with 429 when every session of the identity has a request open, and takes none of another's", async () => {
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const hold: Tool = {
      name: "hold",
      description: "Answers once the test lets it",
      inputSchema: { type: "object", properties: {} },
      execute: async () => {
        await held;
        return "released";
      },
    };
    const quota = await serveMcpHttp({
      name: "quota",
      version: "1.0.0",
      auth: tokens,
      maxSessionsPerIdentity: 1,
      openSession: () => ({ tools: [hold] }),
    });
    const connectTo = async (token: string) => {
      const client = new Client({ name: "quota-test", version: "1.0.0" });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(quota.url), {
          requestInit: { headers: { authorization: `Bearer ${token}` } },
        }),
      );
      return client;
    };
    const initialize = (token: string) =>
      fetch(quota.url, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          authorization: `Bearer ${token}`,
        },
        body: INITIALIZE,
      });
    try {
      const alice = await connectTo(ALICE);
      const busy = alice.callTool({ name: "hold", arguments: {} });
      // alice's one session has a request open: her next session is refused, not made by closing it.
      await new Promise((resolve) => setTimeout(resolve, 50));
      const refused = await initialize(ALICE);
      expect({ status: refused.status, body: await refused.json() }).toEqual({
        status: 429,
        body: {
          jsonrpc: "2.0",
          error: {
            code: -32000,
            message:
              "alice already holds 1 sessions, each with a request open; end one (DELETE with its mcp-session-id) before opening another",
          },
          id: null,
        },
      });
      // bob's quota is his own.
      const bob = await connectTo(BOB);
      expect(quota.sessionCount).toBe(2);
      release();
      expect(await busy).toEqual({ content: [{ type: "text", text: "released" }] });
      await bob.close();
      await alice.close();
    } finally {
      release();
      await quota.close();
    }
  });
});
