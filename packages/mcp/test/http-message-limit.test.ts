// An HTTP server that sends one message past maxHttpMessageBytes: the call fails at once
// naming the reason (instead of the host buffering it all), over SSE responses and plain JSON.
import { ToolError } from "@atrium/spec";
import { describe, expect, it } from "vitest";
import { connectMcpServers, serveMcpHttp } from "../src/index.js";
import { DEFAULT_MCP_LIMITS } from "../src/limits.js";

const signal = () => new AbortController().signal;
const tools = [
  {
    name: "flood",
    description: "Returns more text than one message may carry",
    inputSchema: { type: "object" as const, properties: {} },
    execute: async () => "x".repeat(DEFAULT_MCP_LIMITS.maxHttpMessageBytes + 1),
  },
  {
    name: "small",
    description: "Returns a word",
    inputSchema: { type: "object" as const, properties: {} },
    execute: async () => "fine",
  },
];

describe.each([false, true])("a message over the limit (jsonResponse: %s)", (jsonResponse) => {
  it("ends the connection and fails the call naming the limit", async () => {
    const served = await serveMcpHttp({ name: "big", version: "1.0.0", tools, jsonResponse });
    const connection = await connectMcpServers({ big: { url: served.url } });
    try {
      const tool = (name: string) => connection.tools.find((candidate) => candidate.name === name)!;
      expect(await tool("small").execute({}, { signal: signal() })).toBe("fine");
      const error = await tool("flood")
        .execute({}, { signal: signal() })
        .catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(ToolError);
      expect((error as ToolError).message).toBe(
        `MCP server "big" closed the connection during tool "flood" (it sent a message over ${DEFAULT_MCP_LIMITS.maxHttpMessageBytes} bytes)`,
      );
      const later = await tool("small")
        .execute({}, { signal: signal() })
        .catch((caught: unknown) => caught);
      expect((later as ToolError).message).toBe(
        `MCP server "big" is no longer running, so tool "small" cannot run (it sent a message over ${DEFAULT_MCP_LIMITS.maxHttpMessageBytes} bytes)`,
      );
    } finally {
      await connection.close();
      await served.close();
    }
  });
});
