// Issue 25: an oversized request is answered and the server goes on. Over stdio, a line past
// maxStdioLineBytes gets a JSON-RPC error and the next request is served (the server used to
// exit 0 without a word); over HTTP, a 413 closes the connection cleanly (it said keep-alive,
// then reset it).
import { connect } from "node:net";
import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { serveMcp, serveMcpHttp } from "../src/index.js";
import { DEFAULT_MCP_LIMITS } from "../src/limits.js";
import { echo } from "./fixtures/sample-tools.js";

/** The JSON lines written to `stream`, as they come. */
function jsonLines(stream: PassThrough): () => Promise<unknown> {
  let buffered = "";
  const waiting: ((line: unknown) => void)[] = [];
  const ready: unknown[] = [];
  stream.setEncoding("utf8").on("data", (chunk: string) => {
    buffered += chunk;
    for (let end = buffered.indexOf("\n"); end !== -1; end = buffered.indexOf("\n")) {
      const line = JSON.parse(buffered.slice(0, end));
      buffered = buffered.slice(end + 1);
      const taker = waiting.shift();
      if (taker) taker(line);
      else ready.push(line);
    }
  });
  return () =>
    ready.length > 0 ? Promise.resolve(ready.shift()) : new Promise((resolve) => waiting.push(resolve));
}

describe("stdio: a request line over the limit", () => {
  it(`is answered with -32600 naming maxStdioLineBytes (${DEFAULT_MCP_LIMITS.maxStdioLineBytes}), and the next request is served`, {
    timeout: 20_000,
  }, async () => {
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    const next = jsonLines(stdout);
    await using served = await serveMcp(
      { name: "sample", version: "1.0.0", tools: [echo] },
      { stdin, stdout },
    );
    let closed = false;
    void served.closed.then(() => (closed = true));
    stdin.write(
      `${JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } },
      })}\n`,
    );
    expect(await next()).toMatchObject({ jsonrpc: "2.0", id: 1, result: { serverInfo: { name: "sample" } } });
    stdin.write(`${JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" })}\n`);
    // 11 MB in 1 MB writes, as a pipe delivers it.
    stdin.write(
      '{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{"text":"',
    );
    const megabyte = "x".repeat(1024 * 1024);
    for (let at = 0; at < 11; at++) stdin.write(megabyte);
    stdin.write('"}}}\n');
    expect(await next()).toEqual({
      jsonrpc: "2.0",
      id: 7,
      error: {
        code: -32600,
        message: `Request line over ${DEFAULT_MCP_LIMITS.maxStdioLineBytes} bytes (the server's stdio line limit, maxStdioLineBytes); it was dropped, send a smaller request`,
      },
    });
    stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id: 8, method: "tools/list" })}\n`);
    expect(await next()).toMatchObject({ jsonrpc: "2.0", id: 8, result: { tools: [{ name: "echo" }] } });
    expect(closed).toBe(false);
  });
});

describe("HTTP: after a 413", () => {
  it("says connection: close, then ends the connection without a reset once the body is sent", {
    timeout: 60_000,
  }, async () => {
    await using served = await serveMcpHttp({ name: "guards", version: "1.0.0", tools: [echo] });
    const url = new URL(served.url);
    const bodyBytes = DEFAULT_MCP_LIMITS.maxHttpBodyBytes + 1024 * 1024;
    const socket = connect(Number(url.port), url.hostname);
    let received = "";
    let reset: Error | undefined;
    socket.setEncoding("utf8").on("data", (chunk: string) => (received += chunk));
    socket.on("error", (error) => (reset = error));
    const ended = new Promise<void>((resolve) => socket.once("close", () => resolve()));
    socket.write(
      `POST ${url.pathname} HTTP/1.1\r\nhost: ${url.host}\r\ncontent-type: application/json\r\naccept: application/json, text/event-stream\r\nconnection: keep-alive\r\ncontent-length: ${bodyBytes}\r\n\r\n`,
    );
    const chunk = Buffer.alloc(256 * 1024, 0x78);
    for (let sent = 0; sent < bodyBytes; sent += chunk.length) {
      const piece = chunk.subarray(0, Math.min(chunk.length, bodyBytes - sent));
      if (!socket.write(piece)) await new Promise((resolve) => socket.once("drain", resolve));
    }
    await ended;
    expect(reset).toBeUndefined();
    const [head, body] = received.split("\r\n\r\n");
    expect(head?.split("\r\n")[0]).toBe("HTTP/1.1 413 Payload Too Large");
    expect(head?.toLowerCase()).toContain("\r\nconnection: close");
    expect(head?.toLowerCase()).not.toContain("keep-alive");
    expect(
      JSON.parse(
        head?.toLowerCase().includes("transfer-encoding: chunked")
          ? unchunk(body as string)
          : (body as string),
      ),
    ).toEqual({
      jsonrpc: "2.0",
      error: { code: -32000, message: `Request body over ${DEFAULT_MCP_LIMITS.maxHttpBodyBytes} bytes` },
      id: null,
    });
  });
});

/** The body of a chunked HTTP/1.1 response. */
function unchunk(body: string): string {
  let text = "";
  for (let at = 0; ; ) {
    const end = body.indexOf("\r\n", at);
    const size = Number.parseInt(body.slice(at, end), 16);
    if (!size) return text;
    text += body.slice(end + 2, end + 2 + size);
    at = end + 2 + size + 2;
  }
}
