// Servers that fail in the ways real ones do: each failure names the server, the healthy
// servers' tools keep working, and no process is left behind.
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AbortError } from "@atrium/spec";
import { afterAll, describe, expect, it } from "vitest";
import { connectMcpServers, McpConnectError, McpServerError } from "../src/index.js";
import { DEFAULT_MCP_LIMITS } from "../src/limits.js";
import { everythingStdio, fixtureServer, freePort, isAlive } from "./servers.js";

const dir = mkdtempSync(join(tmpdir(), "atrium-mcp-bad-"));
const pidFile = (name: string) => join(dir, `${name}.pid`);
const pidOf = (name: string) => Number(readFileSync(pidFile(name), "utf8"));
const signal = () => new AbortController().signal;

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("bad servers next to a good one", () => {
  it("reports each failure by server name and keeps every other tool", async () => {
    const closedPort = await freePort();
    const connection = await connectMcpServers(
      {
        everything: everythingStdio,
        crashes: fixtureServer("exits-at-start.mjs", { PID_FILE: pidFile("crashes") }),
        silent: fixtureServer("never-answers.mjs", { PID_FILE: pidFile("silent") }),
        schema: fixtureServer("invalid-schema.mjs", { PID_FILE: pidFile("schema") }),
        noisy: fixtureServer("noisy-stdout.mjs"),
        missing: { command: "atrium-no-such-mcp-server" },
        refused: { url: `http://127.0.0.1:${closedPort}/mcp` },
      },
      // Long enough for the healthy servers on a loaded machine; "silent" uses all of it.
      { connectTimeoutMs: 10_000 },
    );
    try {
      const errors = Object.fromEntries(connection.errors.map(({ server, error }) => [server, error]));
      expect(Object.keys(errors).sort()).toEqual(["crashes", "missing", "refused", "schema", "silent"]);
      for (const [server, error] of Object.entries(errors)) {
        expect(error).toBeInstanceOf(McpServerError);
        expect((error as McpServerError).server).toBe(server);
      }
      expect(errors.crashes?.message).toBe(
        'MCP server "crashes": exited before completing the MCP handshake: it exited with code 3; stderr: fatal: EXAMPLE_API_KEY is not set',
      );
      expect(errors.crashes?.code).toBe("UNAVAILABLE");
      expect(errors.silent?.message).toBe(
        'MCP server "silent": did not answer the MCP handshake within 10000 ms',
      );
      expect(errors.silent?.code).toBe("TIMEOUT");
      expect(errors.schema?.message).toBe(
        'MCP server "schema": tool "count" has an invalid JSON Schema: schema is invalid: data/properties/n/type must be equal to one of the allowed values, data/properties/n/type must be array, data/properties/n/type must match a schema in anyOf',
      );
      expect(errors.missing?.message).toBe(
        'MCP server "missing": command not found: "atrium-no-such-mcp-server" (is it installed and on PATH?)',
      );
      expect(errors.refused?.message).toBe(
        `MCP server "refused": the MCP handshake (streamable-http) failed: fetch failed (connect ECONNREFUSED 127.0.0.1:${closedPort})`,
      );

      // The good server's tools and the schema server's valid tool still work.
      expect(connection.tools.filter((tool) => tool.server === "schema").map((tool) => tool.name)).toEqual([
        "shout",
      ]);
      const shout = connection.tools.find((tool) => tool.name === "shout")!;
      expect(await shout.execute({ word: "quiet" }, { signal: signal() })).toBe("QUIET");
      const ramble = connection.tools.find((tool) => tool.name === "ramble")!;
      expect(ramble.description).toBe(
        `${"blah ".repeat(2_000).slice(0, DEFAULT_MCP_LIMITS.maxToolDescriptionChars)} [… description cut at ${DEFAULT_MCP_LIMITS.maxToolDescriptionChars} characters]`,
      );
      const forecast = connection.tools.find((tool) => tool.name === "forecast")!;
      expect(await forecast.execute({}, { signal: signal() })).toBe("sunny");
      const echo = connection.tools.find((tool) => tool.name === "echo")!;
      expect(await echo.execute({ message: "still here" }, { signal: signal() })).toBe("Echo: still here");

      // The servers that failed to connect are already gone.
      expect(isAlive(pidOf("crashes"))).toBe(false);
      expect(isAlive(pidOf("silent"))).toBe(false);
      expect(Object.keys(connection.clients).sort()).toEqual(["everything", "noisy", "schema"]);
    } finally {
      await connection.close();
    }
    expect(isAlive(pidOf("schema"))).toBe(false);
  });
});

describe("aborting connectMcpServers", () => {
  it("throws AbortError and leaves no child behind", async () => {
    const controller = new AbortController();
    const connecting = connectMcpServers(
      { slow: fixtureServer("never-answers.mjs", { PID_FILE: pidFile("aborted") }) },
      { signal: controller.signal },
    ).catch((caught: unknown) => caught);
    // Abort once the server is really running (its PID file exists), mid-handshake.
    for (let i = 0; i < 250 && !existsSync(pidFile("aborted")); i++)
      await new Promise((r) => setTimeout(r, 20));
    controller.abort();
    const error = await connecting;
    expect(error).toBeInstanceOf(AbortError);
    expect((error as AbortError).message).toBe(
      'the MCP handshake (stdio) on MCP server "slow" was cancelled',
    );
    expect(isAlive(pidOf("aborted"))).toBe(false);
  });
});

describe("when no server connects", () => {
  it("throws McpConnectError naming each failure, leaving no child behind", async () => {
    const error = await connectMcpServers(
      {
        crashes: fixtureServer("exits-at-start.mjs", { PID_FILE: pidFile("all-crash") }),
        missing: { command: "atrium-no-such-mcp-server" },
      },
      { connectTimeoutMs: 10_000 },
    ).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(McpConnectError);
    expect((error as McpConnectError).message).toBe(
      [
        "all 2 MCP servers failed to connect:",
        '  MCP server "crashes": exited before completing the MCP handshake: it exited with code 3; stderr: fatal: EXAMPLE_API_KEY is not set',
        '  MCP server "missing": command not found: "atrium-no-such-mcp-server" (is it installed and on PATH?)',
      ].join("\n"),
    );
    expect((error as McpConnectError).failures.map((failure) => failure.server)).toEqual([
      "crashes",
      "missing",
    ]);
    expect(isAlive(pidOf("all-crash"))).toBe(false);
  });

  it("returns the failures when every server was optional", async () => {
    const connection = await connectMcpServers({
      missing: { command: "atrium-no-such-mcp-server", optional: true },
    });
    expect(connection.tools).toEqual([]);
    expect(connection.errors.map((failure) => failure.error.message)).toEqual([
      'MCP server "missing": command not found: "atrium-no-such-mcp-server" (is it installed and on PATH?)',
    ]);
    await connection.close();
  });
});

describe("the config file's { mcpServers } shape", () => {
  it("is accepted as it is", async () => {
    const connection = await connectMcpServers({ mcpServers: { everything: everythingStdio } });
    try {
      expect(connection.errors).toEqual([]);
      expect(Object.keys(connection.clients)).toEqual(["everything"]);
      const echo = connection.tools.find((tool) => tool.name === "echo")!;
      expect(await echo.execute({ message: "wrapped" }, { signal: signal() })).toBe("Echo: wrapped");
    } finally {
      await connection.close();
    }
  });

  it("anything but an object of servers is a ConfigError saying what to pass", async () => {
    await expect(connectMcpServers([] as never)).rejects.toThrow(
      'connectMcpServers takes an object of servers by name: { everything: { command: "npx", args: [...] } } (or a config file\'s { mcpServers: { ... } })',
    );
  });
});
