// Issue 25: error texts crossing MCP are capped at maxErrorChars with a note saying how much
// was cut: a served tool's failure on the way out, a JSON-RPC error on the way in.
import type { Tool } from "@atrium/spec";
import { CallToolRequestSchema, ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { connectMcpServers, serveMcpHttp } from "../src/index.js";
import { DEFAULT_MCP_LIMITS } from "../src/limits.js";

const boom: Tool = {
  name: "boom",
  description: "Fails with a 6M-character message.",
  inputSchema: { type: "object" },
  async execute() {
    throw new Error("x".repeat(6_000_000));
  },
};

const signal = () => new AbortController().signal;
const max = DEFAULT_MCP_LIMITS.maxErrorChars;

describe(`errors over MCP are capped at maxErrorChars (${max})`, () => {
  it("a served tool's 6M-character failure reaches the client as max characters ending in the note", {
    timeout: 60_000,
  }, async () => {
    await using served = await serveMcpHttp({ name: "errors", version: "1.0.0", tools: [boom] });
    const connection = await connectMcpServers({ errors: { url: served.url } });
    try {
      const error = await connection.tools[0]!.execute({}, { signal: signal() }).then(
        () => undefined,
        (caught: Error) => caught,
      );
      const note = "… [cut 5,980,048 characters]";
      expect(error?.message).toHaveLength(max);
      expect(error?.message.startsWith('Tool "boom" failed: xxx')).toBe(true);
      expect(error?.message.endsWith(`x${note}`)).toBe(true);
    } finally {
      await connection.close();
    }
  });

  it("a JSON-RPC error of 6M characters is capped by the client", { timeout: 60_000 }, async () => {
    await using served = await serveMcpHttp({
      name: "rpc",
      version: "1.0.0",
      tools: [boom],
      extend: (server) =>
        server.setRequestHandler(CallToolRequestSchema, () => {
          throw new McpError(ErrorCode.InternalError, "y".repeat(6_000_000));
        }),
    });
    const connection = await connectMcpServers({ rpc: { url: served.url } });
    try {
      const error = await connection.tools[0]!.execute({}, { signal: signal() }).then(
        () => undefined,
        (caught: Error) => caught,
      );
      // "MCP server "rpc" tool "boom" failed: " and the server's text capped at max.
      expect([error?.message.slice(0, 80), error?.message.slice(-40), error?.message.length]).toEqual([
        'MCP server "rpc" tool "boom" failed: MCP error -32603: MCP error -32603: yyyyyyy',
        "yyyyyyyyyyyy… [cut 5,980,064 characters]",
        37 + max,
      ]);
    } finally {
      await connection.close();
    }
  });
});
