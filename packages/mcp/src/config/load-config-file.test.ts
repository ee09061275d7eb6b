import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ConfigError } from "@atrium/spec";
import { afterAll, describe, expect, it } from "vitest";
import { loadMcpConfigFile } from "./load-config-file.js";

const dir = mkdtempSync(join(tmpdir(), "atrium-mcp-config-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function file(name: string, content: string): string {
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
}

describe("loadMcpConfigFile", () => {
  it("reads the Claude Desktop / Cursor format, skipping disabled servers", async () => {
    const path = file(
      "ok.json",
      JSON.stringify({
        mcpServers: {
          everything: { command: "npx", args: ["-y", "@modelcontextprotocol/server-everything"] },
          github: {
            command: "docker",
            args: ["run", "-i", "ghcr.io/github/github-mcp-server"],
            env: { TOKEN: "t" },
          },
          remote: { url: "https://mcp.example.com/mcp", headers: { Authorization: "Bearer x" } },
          legacy: { type: "sse", url: "http://localhost:3001/sse" },
          off: { command: "never-started", disabled: true },
        },
      }),
    );
    expect(await loadMcpConfigFile(path)).toEqual({
      everything: { command: "npx", args: ["-y", "@modelcontextprotocol/server-everything"] },
      github: {
        command: "docker",
        args: ["run", "-i", "ghcr.io/github/github-mcp-server"],
        env: { TOKEN: "t" },
      },
      remote: { url: "https://mcp.example.com/mcp", headers: { Authorization: "Bearer x" } },
      legacy: { type: "sse", url: "http://localhost:3001/sse" },
    });
  });

  it("keeps servers marked optional, and checks the mark", async () => {
    const ok = file(
      "optional.json",
      JSON.stringify({
        mcpServers: {
          tools: { command: "tools-server", optional: true },
          remote: { url: "https://mcp.example.com/mcp", optional: false },
        },
      }),
    );
    expect(await loadMcpConfigFile(ok)).toEqual({
      tools: { command: "tools-server", optional: true },
      remote: { url: "https://mcp.example.com/mcp", optional: false },
    });
    const bad = file(
      "optional-bad.json",
      JSON.stringify({ mcpServers: { tools: { command: "t", optional: "yes" } } }),
    );
    await expect(loadMcpConfigFile(bad)).rejects.toThrow("tools.optional: expected true or false");
  });

  it("names the file and every bad field", async () => {
    const path = file(
      "bad.json",
      JSON.stringify({
        mcpServers: {
          a: { command: "", args: ["ok", 3] },
          b: { url: "ftp://x" },
          c: { args: [] },
          d: { command: "x", env: { N: 1 } },
        },
      }),
    );
    await expect(loadMcpConfigFile(path)).rejects.toThrow(
      new ConfigError(
        `${path}: mcpServers.a.command: must not be empty; mcpServers.a.args.1: expected a string; mcpServers.b.url: expected an http(s) URL; mcpServers.c: expected "command" (a stdio server) or "url" (an HTTP server); mcpServers.d.env.N: expected a string value`,
      ),
    );
  });

  it("explains a missing file, bad JSON and a missing mcpServers key", async () => {
    const missing = join(dir, "nope.json");
    await expect(loadMcpConfigFile(missing)).rejects.toThrow(
      `${missing}: cannot read MCP config file (no such file)`,
    );
    const broken = file("broken.json", "{ mcpServers: }");
    await expect(loadMcpConfigFile(broken)).rejects.toThrow(
      `${broken}: not valid JSON (Expected property name or '}' in JSON at position 2)`,
    );
    const other = file("other.json", JSON.stringify({ servers: {} }));
    await expect(loadMcpConfigFile(other)).rejects.toThrow(
      `${other}: mcpServers: expected an object mapping server names to {"command"} or {"url"}`,
    );
  });
});
