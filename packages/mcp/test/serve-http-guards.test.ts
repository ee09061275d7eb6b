// What serveMcpHttp refuses before any MCP handling, and what createMcpServer refuses to serve.
import { request } from "node:http";
import { ConfigError } from "@atrium/spec";
import { ListResourcesRequestSchema, ReadResourceRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectMcpServers, createMcpServer, type ServedMcpHttp, serveMcpHttp } from "../src/index.js";
import { DEFAULT_MCP_LIMITS } from "../src/limits.js";
import { echo } from "./fixtures/sample-tools.js";

let served: ServedMcpHttp;
beforeAll(async () => {
  served = await serveMcpHttp({ name: "guards", version: "1.0.0", tools: [echo] });
});
afterAll(async () => served?.close());

function send(
  method: string,
  path: string,
  { headers = {}, body }: { headers?: Record<string, string>; body?: string } = {},
): Promise<{ status: number; text: string }> {
  const url = new URL(served.url);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: url.hostname,
        port: url.port,
        method,
        path,
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          ...headers,
        },
      },
      (res) => {
        let text = "";
        res.setEncoding("utf8").on("data", (chunk: string) => (text += chunk));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, text }));
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

const rpcError = (message: string, code = -32000) =>
  JSON.stringify({ jsonrpc: "2.0", error: { code, message }, id: null });
const ping = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" });

describe("serveMcpHttp guards", () => {
  it("listens on loopback at /mcp", () => {
    expect(served.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
  });

  it("answers other paths with 404", async () => {
    expect(await send("POST", "/other", { body: ping })).toEqual({
      status: 404,
      text: "not found; the MCP endpoint is /mcp",
    });
  });

  it("refuses a non-loopback Host header (DNS rebinding)", async () => {
    expect(await send("POST", "/mcp", { body: ping, headers: { host: "evil.example:80" } })).toEqual({
      status: 403,
      text: "Host header is not loopback",
    });
  });

  it("asks for initialize first, and for a known session after", async () => {
    expect(await send("POST", "/mcp", { body: ping })).toEqual({
      status: 400,
      text: rpcError("No session: the first request must be initialize"),
    });
    expect(await send("GET", "/mcp")).toEqual({
      status: 400,
      text: rpcError("Missing mcp-session-id header"),
    });
    expect(await send("POST", "/mcp", { body: ping, headers: { "mcp-session-id": "made-up" } })).toEqual({
      status: 404,
      text: rpcError("Session not found; initialize a new one"),
    });
  });

  it("refuses bodies that are not JSON or too large", async () => {
    expect(await send("POST", "/mcp", { body: "{nope" })).toEqual({
      status: 400,
      text: rpcError("Parse error: Expected property name or '}' in JSON at position 1", -32700),
    });
    const huge = JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "ping",
      params: { pad: "x".repeat(DEFAULT_MCP_LIMITS.maxHttpBodyBytes) },
    });
    expect(await send("POST", "/mcp", { body: huge })).toEqual({
      status: 413,
      text: rpcError(`Request body over ${DEFAULT_MCP_LIMITS.maxHttpBodyBytes} bytes`),
    });
  });
});

describe("session limit", () => {
  it(`past maxHttpSessions (${DEFAULT_MCP_LIMITS.maxHttpSessions}) gives the slot of the session idle longest to a new client; DELETE ends a session`, async () => {
    const server = await serveMcpHttp({ name: "full", version: "1.0.0", tools: [echo], jsonResponse: true });
    const initialize = () =>
      fetch(server.url, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 1,
          method: "initialize",
          params: {
            protocolVersion: "2025-06-18",
            capabilities: {},
            clientInfo: { name: "t", version: "1" },
          },
        }),
      });
    const ping = (session: string) =>
      fetch(server.url, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          "mcp-session-id": session,
        },
        body: JSON.stringify({ jsonrpc: "2.0", id: 2, method: "ping" }),
      });
    try {
      // Clients that initialize and never come back: each session is idle once its reply is sent.
      const sessions: string[] = [];
      for (let i = 0; i < DEFAULT_MCP_LIMITS.maxHttpSessions; i++) {
        const response = await initialize();
        expect(response.status).toBe(200);
        await response.text();
        sessions.push(response.headers.get("mcp-session-id")!);
      }
      expect(server.sessionCount).toBe(DEFAULT_MCP_LIMITS.maxHttpSessions);
      const newcomer = await initialize();
      expect(newcomer.status).toBe(200);
      await newcomer.text();
      expect(server.sessionCount).toBe(DEFAULT_MCP_LIMITS.maxHttpSessions);
      const evicted = await ping(sessions[0]!);
      expect({ status: evicted.status, text: await evicted.text() }).toEqual({
        status: 404,
        text: rpcError("Session not found; initialize a new one"),
      });
      expect((await ping(sessions[1]!)).status).toBe(200);
      const ended = await fetch(server.url, {
        method: "DELETE",
        headers: { "mcp-session-id": sessions[2]! },
      });
      expect(ended.status).toBe(200);
      expect(server.sessionCount).toBe(DEFAULT_MCP_LIMITS.maxHttpSessions - 1);
    } finally {
      await server.close();
    }
  });
});

describe("extend", () => {
  it("adds resources to every served session", async () => {
    const server = await serveMcpHttp({
      name: "docs",
      version: "1.0.0",
      tools: [echo],
      extend: (mcp) => {
        mcp.registerCapabilities({ resources: {} });
        mcp.setRequestHandler(ListResourcesRequestSchema, () => ({
          resources: [{ uri: "docs://readme", name: "README", mimeType: "text/markdown" }],
        }));
        mcp.setRequestHandler(ReadResourceRequestSchema, (request) => ({
          contents: [{ uri: request.params.uri, mimeType: "text/markdown", text: "# Docs" }],
        }));
      },
    });
    const connection = await connectMcpServers({ docs: { url: server.url } });
    try {
      const client = connection.clients.docs!;
      expect(await client.listResources()).toEqual([
        { uri: "docs://readme", name: "README", mimeType: "text/markdown" },
      ]);
      expect(await client.readResource("docs://readme")).toEqual([
        { uri: "docs://readme", mimeType: "text/markdown", text: "# Docs" },
      ]);
    } finally {
      await connection.close();
      await server.close();
    }
  });
});

describe("createMcpServer", () => {
  it("refuses tool names that are not identifiers, non-object schemas and duplicates", () => {
    const serve = (tools: (typeof echo)[]) => () => createMcpServer({ name: "x", version: "1", tools });
    expect(serve([{ ...echo, name: "get-sum" }])).toThrow(
      new ConfigError('serveMcp: tool name "get-sum" must match /^[A-Za-z_][A-Za-z0-9_]{0,63}$/'),
    );
    expect(serve([{ ...echo, inputSchema: { type: "string" } }])).toThrow(
      'serveMcp: tool "echo" needs an object input schema ({"type": "object", ...})',
    );
    expect(serve([echo, echo])).toThrow("serveMcp: two tools share one name");
  });
});
