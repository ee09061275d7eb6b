// serveMcpHttp under the faults of real clients: sessions that are abandoned, calls whose client
// cancels or disconnects, shutdown with calls in flight, and malformed tools/call requests. Real
// SDK clients and raw HTTP requests over loopback against a real server.

import { schemaToolInput } from "@atrium/kit";
import type { Tool } from "@atrium/spec";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { connectMcpServers, type ServedMcpHttp, serveMcpHttp } from "../src/index.js";
import { echo } from "./fixtures/sample-tools.js";

/** A tool that runs until its signal aborts, and records each abort by label. */
function waitTool(aborted: string[]): Tool<{ label: string }> {
  return {
    name: "wait",
    description: "Waits until cancelled",
    inputSchema: { type: "object", properties: { label: { type: "string" } }, required: ["label"] },
    execute: ({ label }, { signal }) =>
      new Promise((_resolve, reject) => {
        signal.addEventListener("abort", () => {
          aborted.push(label);
          reject(new Error("stopped"));
        });
      }),
  };
}

/** A tool that answers after `ms` milliseconds. */
const sleep: Tool<{ ms: number }> = {
  name: "sleep",
  description: "Answers after ms milliseconds",
  inputSchema: { type: "object", properties: { ms: { type: "number" } }, required: ["ms"] },
  execute: ({ ms }) => new Promise((resolve) => setTimeout(() => resolve(`slept ${ms}`), ms)),
};

async function sdkClient(url: string): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  const client = new Client({ name: "faults", version: "1.0.0" });
  const transport = new StreamableHTTPClientTransport(new URL(url));
  await client.connect(transport);
  return { client, transport };
}

const HEADERS = { "content-type": "application/json", accept: "application/json, text/event-stream" };

/** A raw initialize; resolves to the new session's id. */
async function rawSession(url: string): Promise<string> {
  const response = await fetch(url, {
    method: "POST",
    headers: HEADERS,
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 0,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
    }),
  });
  await response.text();
  return response.headers.get("mcp-session-id")!;
}

function rawPost(url: string, session: string, body: unknown, signal?: AbortSignal) {
  return fetch(url, {
    method: "POST",
    headers: { ...HEADERS, "mcp-session-id": session, "mcp-protocol-version": "2025-06-18" },
    body: JSON.stringify(body),
    signal,
  });
}

async function waitFor(condition: () => boolean, what: string, timeoutMs = 5_000): Promise<void> {
  const started = Date.now();
  while (!condition()) {
    if (Date.now() - started > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe("sessions of clients that leave", () => {
  it("a connected client keeps its session; one that left without ending it expires after sessionIdleMs", async () => {
    const server = await serveMcpHttp({ name: "idle", version: "1.0.0", tools: [echo], sessionIdleMs: 300 });
    const staying = await connectMcpServers({ idle: { url: server.url } });
    try {
      const leaving = await sdkClient(server.url);
      // The SDK's close() does not end the session (no DELETE); only its GET stream goes away.
      await leaving.client.close();
      expect(server.sessionCount).toBe(2);
      await waitFor(() => server.sessionCount === 1, "the abandoned session to expire");
      await new Promise((resolve) => setTimeout(resolve, 700)); // over twice sessionIdleMs
      expect(server.sessionCount).toBe(1);
      const [echoTool] = staying.tools;
      expect(
        await echoTool!.execute({ message: "still here" }, { signal: new AbortController().signal }),
      ).toBe("still here");
    } finally {
      await staying.close();
      await server.close();
    }
  });

  it("a full table evicts the session idle longest, and refuses only when every session has a request open", async () => {
    const server = await serveMcpHttp({ name: "full", version: "1.0.0", tools: [echo], maxSessions: 2 });
    const first = await sdkClient(server.url);
    try {
      const vanished = await rawSession(server.url);
      const second = await sdkClient(server.url); // takes the vanished client's slot
      expect(server.sessionCount).toBe(2);
      const gone = await rawPost(server.url, vanished, { jsonrpc: "2.0", id: 1, method: "ping" });
      expect(gone.status).toBe(404);
      await gone.text();
      const refused = await fetch(server.url, {
        method: "POST",
        headers: HEADERS,
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 0,
          method: "initialize",
          params: {
            protocolVersion: "2025-06-18",
            capabilities: {},
            clientInfo: { name: "raw", version: "1" },
          },
        }),
      });
      expect({ status: refused.status, body: await refused.json() }).toEqual({
        status: 503,
        body: {
          jsonrpc: "2.0",
          error: {
            code: -32000,
            message: "Too many sessions (2), each with a request open; retry when one ends",
          },
          id: null,
        },
      });
      expect(await first.client.callTool({ name: "echo", arguments: { message: "a" } })).toEqual({
        content: [{ type: "text", text: "a" }],
      });
      // terminateSession() is the DELETE that ends a session; close() alone leaves it to expire.
      await second.transport.terminateSession();
      await second.client.close();
      expect(server.sessionCount).toBe(1);
    } finally {
      await first.client.close();
      await server.close();
    }
  });
});

describe("abandoned calls", () => {
  it("a client's cancellation aborts the tool's signal", async () => {
    const aborted: string[] = [];
    const server = await serveMcpHttp({ name: "cancel", version: "1.0.0", tools: [waitTool(aborted)] });
    const { client } = await sdkClient(server.url);
    try {
      const controller = new AbortController();
      const call = client.callTool({ name: "wait", arguments: { label: "cancelled" } }, undefined, {
        signal: controller.signal,
      });
      await waitFor(() => server.inFlightCount === 1, "the call to arrive");
      controller.abort("changed my mind");
      await expect(call).rejects.toThrow("changed my mind");
      await waitFor(() => aborted.length === 1, "the tool to see the abort");
      expect(aborted).toEqual(["cancelled"]);
    } finally {
      await client.close();
      await server.close();
    }
  });

  it.each([
    { mode: "SSE", jsonResponse: false },
    { mode: "JSON", jsonResponse: true },
  ])(
    "a client that disconnects mid-call ($mode responses) aborts the tool's signal",
    async ({ jsonResponse }) => {
      const aborted: string[] = [];
      const server = await serveMcpHttp({
        name: "disconnect",
        version: "1.0.0",
        tools: [waitTool(aborted)],
        jsonResponse,
      });
      try {
        const session = await rawSession(server.url);
        const controller = new AbortController();
        const call = {
          jsonrpc: "2.0",
          id: 7,
          method: "tools/call",
          params: { name: "wait", arguments: { label: "gone" } },
        };
        const response = rawPost(server.url, session, call, controller.signal).then((r) => r.text());
        await waitFor(() => server.inFlightCount === 1, "the call to arrive");
        controller.abort();
        await expect(response).rejects.toThrow();
        await waitFor(() => aborted.length === 1, "the tool to see the abort");
        expect(aborted).toEqual(["gone"]);
        expect(server.inFlightCount).toBe(0);
      } finally {
        await server.close();
      }
    },
  );
});

describe("close() with calls in flight", () => {
  it.each([
    { mode: "SSE", jsonResponse: false },
    { mode: "JSON", jsonResponse: true },
  ])(
    "stops taking requests, lets calls finish within the grace period and answers the rest with an error ($mode responses)",
    async ({ jsonResponse }) => {
      const aborted: string[] = [];
      const server = await serveMcpHttp({
        name: "drain",
        version: "1.0.0",
        tools: [sleep, waitTool(aborted)],
        shutdownGraceMs: 1_000,
        jsonResponse,
      });
      const clients = await Promise.all([1, 2, 3, 4].map(() => sdkClient(server.url)));
      try {
        const calls = clients.map(({ client }, i) =>
          client
            .callTool(
              i < 2
                ? { name: "sleep", arguments: { ms: 300 } }
                : { name: "wait", arguments: { label: `w${i}` } },
            )
            .then(
              (result) => result,
              (error: Error) => error.message,
            ),
        );
        await waitFor(() => server.inFlightCount === 4, "four calls in flight");
        const closing = server.close();
        const late = await fetch(server.url, { method: "POST", headers: HEADERS, body: "{}" }).then(
          (response) => response.status,
          () => "connection refused",
        );
        expect(late).toBe("connection refused");
        expect(await Promise.all(calls)).toEqual([
          { content: [{ type: "text", text: "slept 300" }] },
          { content: [{ type: "text", text: "slept 300" }] },
          "MCP error -32000: The server is shutting down; the call did not finish within 1000 ms",
          "MCP error -32000: The server is shutting down; the call did not finish within 1000 ms",
        ]);
        await closing;
        expect(aborted.sort()).toEqual(["w2", "w3"]);
        expect(server.sessionCount).toBe(0);
      } finally {
        await Promise.all(clients.map(({ client }) => client.close()));
        await server.close();
      }
    },
  );
});

describe("malformed tools/call", () => {
  const strict: Tool = {
    name: "run",
    description: "Runs a command",
    ...schemaToolInput(z.strictObject({ command: z.string().min(1) }), "run"),
    execute: async ({ command }: { command: string }) => `ran ${command}`,
  };
  const loose: Tool = {
    name: "note",
    description: "Takes a note",
    ...schemaToolInput(z.object({ text: z.string() }), "note"),
    inputSchema: {
      type: "object",
      properties: { text: { type: "string" } },
      required: ["text"],
      additionalProperties: false,
    },
    execute: async ({ text }: { text: string }) => `noted ${text}`,
  };
  let server: ServedMcpHttp;

  async function call(params: unknown): Promise<unknown> {
    const session = await rawSession(server.url);
    const response = await rawPost(server.url, session, {
      jsonrpc: "2.0",
      id: 3,
      method: "tools/call",
      params,
    });
    return response.json();
  }

  it("answers -32602 with a sentence for a missing name, an unknown tool or arguments that are no object", async () => {
    server = await serveMcpHttp({
      name: "strict",
      version: "1.0.0",
      tools: [strict, loose],
      jsonResponse: true,
    });
    try {
      const error = (message: string) => ({ jsonrpc: "2.0", id: 3, error: { code: -32602, message } });
      expect(await call({ arguments: { command: "ls" } })).toEqual(
        error("tools/call needs params.name, the tool to call (this server has: run, note)"),
      );
      expect(await call({ name: "nope" })).toEqual(error('Unknown tool "nope"; this server has: run, note'));
      expect(await call({ name: "run", arguments: ["ls"] })).toEqual(
        error("tools/call params.arguments must be an object of the tool's inputs, got an array"),
      );
      const { client } = await sdkClient(server.url);
      // The client adds its "MCP error <code>: " prefix once; the server's message has none.
      await expect(client.callTool({ name: "nope", arguments: {} })).rejects.toHaveProperty(
        "message",
        'MCP error -32602: Unknown tool "nope"; this server has: run, note',
      );
      await client.close();
    } finally {
      await server.close();
    }
  });

  it("refuses fields the advertised schema forbids, even when the tool's own check would drop them", async () => {
    server = await serveMcpHttp({
      name: "strict",
      version: "1.0.0",
      tools: [strict, loose],
      jsonResponse: true,
    });
    try {
      const { client } = await sdkClient(server.url);
      expect(await client.callTool({ name: "run", arguments: { command: "ls", extra: true } })).toEqual({
        content: [{ type: "text", text: 'Invalid input for tool "run": Unrecognized key: "extra"' }],
        isError: true,
      });
      expect(await client.callTool({ name: "note", arguments: { text: "hi", extra: true } })).toEqual({
        content: [{ type: "text", text: 'Invalid input for tool "note": extra: is not an allowed property' }],
        isError: true,
      });
      expect(await client.callTool({ name: "note", arguments: { text: "hi" } })).toEqual({
        content: [{ type: "text", text: "noted hi" }],
      });
      await client.close();
    } finally {
      await server.close();
    }
  });
});
