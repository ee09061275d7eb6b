// Configured headers (auth tokens) reach the server on every request of the session.
import { createServer, request } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectMcpServers, type ServedMcpHttp, serveMcpHttp } from "../src/index.js";
import { echo } from "./fixtures/sample-tools.js";

let served: ServedMcpHttp;
let proxyUrl: string;
const seen: { method: string; authorization: string | undefined }[] = [];
// A recording pass-through in front of the server: what the client sends is what it sees.
const proxy = createServer((req, res) => {
  seen.push({ method: req.method ?? "", authorization: req.headers.authorization });
  const target = new URL(served.url);
  const upstream = request(
    {
      host: target.hostname,
      port: target.port,
      path: req.url,
      method: req.method,
      headers: { ...req.headers, host: target.host },
    },
    (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    },
  );
  req.pipe(upstream);
});

beforeAll(async () => {
  served = await serveMcpHttp({ name: "headers", version: "1.0.0", tools: [echo] });
  await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
  proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}/mcp`;
});
afterAll(async () => {
  proxy.closeAllConnections();
  await new Promise((resolve) => proxy.close(resolve));
  await served?.close();
});

describe("HTTP headers", () => {
  it("sends the configured headers with every request", async () => {
    const connection = await connectMcpServers({
      remote: { type: "http", url: proxyUrl, headers: { Authorization: "Bearer s3cret" } },
    });
    try {
      expect(connection.errors).toEqual([]);
      expect(
        await connection.tools[0]!.execute({ message: "ok" }, { signal: new AbortController().signal }),
      ).toBe("ok");
    } finally {
      await connection.close();
    }
    expect(seen.filter((request) => request.authorization !== "Bearer s3cret")).toEqual([]);
    // initialize, initialized, tools/list, tools/call, and the session's end on close(); the
    // client's GET stream for server-initiated messages runs beside them.
    expect(seen.filter((request) => request.method !== "GET").map((request) => request.method)).toEqual([
      "POST",
      "POST",
      "POST",
      "POST",
      "DELETE",
    ]);
  });
});
