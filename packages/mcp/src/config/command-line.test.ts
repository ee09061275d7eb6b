import { ConfigError } from "@atrium/spec";
import { describe, expect, it } from "vitest";
import { defaultServerName, parseMcpCommandLine } from "./command-line.js";

describe("parseMcpCommandLine", () => {
  it("splits a command into program and arguments", () => {
    expect(parseMcpCommandLine("npx -y @modelcontextprotocol/server-everything")).toEqual({
      command: "npx",
      args: ["-y", "@modelcontextprotocol/server-everything"],
    });
  });

  it("respects quotes and backslashes and keeps $VARS literal", () => {
    expect(parseMcpCommandLine(`node "my server.js" --root 'a b' c\\ d --home $HOME`)).toEqual({
      command: "node",
      args: ["my server.js", "--root", "a b", "c d", "--home", "$HOME"],
    });
  });

  it("turns leading KEY=value words into env", () => {
    expect(parseMcpCommandLine("GITHUB_TOKEN=abc DEBUG= uvx mcp-server-git --repo .")).toEqual({
      command: "uvx",
      args: ["mcp-server-git", "--repo", "."],
      env: { GITHUB_TOKEN: "abc", DEBUG: "" },
    });
  });

  it("turns a URL into an HTTP server", () => {
    expect(parseMcpCommandLine("https://example.com/mcp")).toEqual({ url: "https://example.com/mcp" });
  });

  it("refuses shell operators and empty commands, naming the server", () => {
    expect(() => parseMcpCommandLine("server | tee log", "logs")).toThrow(
      new ConfigError(
        `MCP server "logs": command "server | tee log" uses the shell operator "|"; commands are not run through a shell — wrap it in a script or use sh -c '...'`,
      ),
    );
    expect(() => parseMcpCommandLine("  ")).toThrow(
      'empty MCP server command; give e.g. "npx -y @modelcontextprotocol/server-everything"',
    );
    expect(() => parseMcpCommandLine("A=1")).toThrow('command "A=1" names no program');
  });

  it("refuses an unclosed quote instead of guessing where it ends", () => {
    expect(() => parseMcpCommandLine(`npx -y "@modelcontextprotocol/server-everything`)).toThrow(
      new ConfigError(
        `command "npx -y "@modelcontextprotocol/server-everything" has an unclosed " quote; close it or escape it with a backslash`,
      ),
    );
    expect(() => parseMcpCommandLine("node 'my server.js", "files")).toThrow(
      `MCP server "files": command "node 'my server.js" has an unclosed ' quote`,
    );
    expect(() => parseMcpCommandLine(`node "a\\"`)).toThrow('has an unclosed " quote');
    // Escaped and nested quotes are closed; a quote inside a comment does not count.
    expect(parseMcpCommandLine(`node it\\'s "say 'hi'" 'a"b' # don't`)).toEqual({
      command: "node",
      args: ["it's", "say 'hi'", 'a"b'],
    });
  });
});

describe("defaultServerName", () => {
  it.each([
    ["npx -y @modelcontextprotocol/server-everything", "everything"],
    ["npx -y @playwright/mcp@latest", "mcp"],
    ["uvx mcp-server-fetch", "fetch"],
    ["node ./build/weather-server.js", "weather"],
    ["docker run -i --rm github-mcp-server", "github"],
    ["https://mcp.example.com/mcp", "mcp.example.com"],
    ["python3 server.py", "server"],
    ["uv run weather.py", "weather"],
  ])("%s → %s", (command, name) => {
    expect(defaultServerName(parseMcpCommandLine(command))).toBe(name);
  });
});
