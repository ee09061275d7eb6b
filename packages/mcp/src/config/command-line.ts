import { basename } from "node:path";
import { ConfigError } from "@atrium/spec";
import { parse } from "shell-quote";
import type { McpServerConfig } from "./server-config.js";

const ENV_ASSIGNMENT = /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/s;
/** Programs that start the real server named by a later word (`npx pkg`, `node server.js`). */
const LAUNCHERS = new Set([
  ...["npx", "bunx", "uvx", "pnpx", "pipx", "dlx", "exec", "run", "docker", "uv", "pnpm", "npm"],
  ...["node", "deno", "bun", "python", "python3", "tsx"],
]);

/**
 * Turns a `--mcp` command line into a server config. Quotes and backslashes follow POSIX shell
 * rules, leading `KEY=value` words become `env`, and an http(s) URL gives an HTTP server.
 * Nothing is expanded (`$HOME` stays literal) and shell operators are refused: the command is
 * spawned directly, never through a shell.
 */
export function parseMcpCommandLine(cmd: string, name?: string): McpServerConfig {
  const label = name ? `MCP server "${name}": ` : "";
  const trimmed = cmd.trim();
  if (!trimmed) {
    throw new ConfigError(
      `${label}empty MCP server command; give e.g. "npx -y @modelcontextprotocol/server-everything"`,
    );
  }
  if (/^https?:\/\//i.test(trimmed) && !/\s/.test(trimmed)) {
    try {
      return { url: new URL(trimmed).href };
    } catch (error) {
      throw new ConfigError(`${label}invalid MCP server URL "${trimmed}"`, { cause: error });
    }
  }
  const open = unclosedQuote(trimmed);
  if (open) {
    throw new ConfigError(
      `${label}command "${trimmed}" has an unclosed ${open} quote; close it or escape it with a backslash`,
    );
  }
  const words: string[] = [];
  for (const entry of parse(trimmed, (key) => `$${key}`)) {
    if (typeof entry === "string") words.push(entry);
    else if ("op" in entry && entry.op === "glob") words.push(entry.pattern);
    else if ("comment" in entry) break;
    else {
      throw new ConfigError(
        `${label}command "${trimmed}" uses the shell operator "${entry.op}"; commands are not run through a shell — wrap it in a script or use sh -c '...'`,
      );
    }
  }
  const env: Record<string, string> = {};
  while (words.length > 1 && ENV_ASSIGNMENT.test(words[0]!)) {
    const [, key, value] = ENV_ASSIGNMENT.exec(words.shift()!)!;
    env[key!] = value!;
  }
  const [command, ...args] = words;
  if (!command || ENV_ASSIGNMENT.test(command))
    throw new ConfigError(`${label}command "${trimmed}" names no program`);
  return { command, args, ...(Object.keys(env).length ? { env } : {}) };
}

/**
 * The quote character left open at the end of `text` under POSIX shell rules, if any.
 * shell-quote itself accepts `npx "pkg` as if the quote were closed, which would spawn a
 * program the user did not mean.
 */
function unclosedQuote(text: string): "'" | '"' | undefined {
  let quote: "'" | '"' | undefined;
  for (let i = 0; i < text.length; i++) {
    const char = text[i];
    if (quote === "'") {
      if (char === "'") quote = undefined;
    } else if (char === "\\") {
      i++; // the next character is literal, outside quotes and inside double quotes alike
    } else if (quote === '"') {
      if (char === '"') quote = undefined;
    } else if (char === "'" || char === '"') {
      quote = char;
    } else if (char === "#" && (i === 0 || /\s/.test(text[i - 1]!))) {
      break; // a comment: quotes after it do not count
    }
  }
  return quote;
}

/**
 * A short server name for a config given without one: the package a runner starts
 * ("npx -y @modelcontextprotocol/server-everything" → "everything"), a script's file name,
 * or a URL's host.
 */
export function defaultServerName(config: McpServerConfig): string {
  if ("url" in config) return new URL(config.url).hostname.replace(/^www\./, "") || "server";
  const words = [config.command, ...(config.args ?? [])].map((word) => basename(word));
  const program = words.find((word, i) => i > 0 && !word.startsWith("-") && !LAUNCHERS.has(word));
  const chosen = LAUNCHERS.has(words[0]!) ? (program ?? words[0]!) : words[0]!;
  return (
    chosen
      .replace(/@[^@/]*$/, "") // version suffix: pkg@1.2.3
      .replace(/\.[cm]?[jt]s$|\.py$/, "")
      .replace(/^(mcp-server-|server-|mcp-)/, "")
      .replace(/(-mcp-server|-server|-mcp)$/, "") || "server"
  );
}
