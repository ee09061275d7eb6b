import { ConfigError } from "@atrium/spec";
import { describe, expect, it } from "vitest";
import { McpClient } from "./client/mcp-client.js";
import { DEFAULT_MCP_LIMITS, resolveMcpLimits } from "./limits.js";
import { serveMcpHttp } from "./serve/serve-http.js";

describe("mcp limits", () => {
  it("resolves to the frozen defaults, which pass their own checks", () => {
    expect(resolveMcpLimits()).toEqual(DEFAULT_MCP_LIMITS);
    expect(resolveMcpLimits(DEFAULT_MCP_LIMITS)).toEqual(DEFAULT_MCP_LIMITS);
    expect(Object.isFrozen(DEFAULT_MCP_LIMITS)).toBe(true);
    expect(resolveMcpLimits({ callTimeoutMs: 5 }).callTimeoutMs).toBe(5);
  });

  it("checks the options that override a limit before anything starts", async () => {
    await expect(
      McpClient.connect("s", { command: "does-not-matter" }, { callTimeoutMs: -1 }),
    ).rejects.toThrow(
      new ConfigError(
        "@atrium/mcp limit callTimeoutMs must be a positive finite number of milliseconds, got -1",
      ),
    );
    const echo = {
      name: "echo",
      description: "Echoes.",
      inputSchema: { type: "object" },
      execute: async () => "ok",
    };
    await expect(
      serveMcpHttp({ name: "limits", version: "1.0.0", tools: [echo], sessionIdleMs: 0 }),
    ).rejects.toThrow(
      new ConfigError(
        "@atrium/mcp limit sessionIdleMs must be a positive finite number of milliseconds, got 0",
      ),
    );
  });
});
