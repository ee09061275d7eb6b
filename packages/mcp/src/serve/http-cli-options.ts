import type { CliOptions } from "@atrium/kit/cli";

/** The hosts `--no-auth` may listen on: only this machine reaches them. */
export const LOOPBACK_HOSTS: ReadonlySet<string> = new Set(["127.0.0.1", "localhost", "::1"]);

/**
 * The HTTP options of every Atrium MCP server's CLI (`atrium-docs mcp`, `atrium-palace mcp`);
 * each adds its own `--tokens-file`, whose entries carry what that server grants.
 */
export const MCP_HTTP_CLI_OPTIONS = {
  http: { type: "boolean", help: "serve streamable HTTP instead of stdio; prints the endpoint URL" },
  "no-auth": {
    type: "boolean",
    help: "serve HTTP without authentication (refused unless --host is loopback)",
  },
  port: { type: "string", value: "N", help: "HTTP port (default: a free one)" },
  host: { type: "string", value: "H", help: "HTTP interface (default 127.0.0.1)" },
} as const satisfies CliOptions;

/**
 * What is wrong with a server's transport options, in one sentence, or undefined: HTTP needs
 * exactly one of a tokens file and `--no-auth`; `--no-auth` only on a loopback host; the HTTP
 * options only with `--http`.
 */
export function mcpHttpOptionsProblem(values: {
  http?: boolean | undefined;
  "tokens-file"?: string | undefined;
  "no-auth"?: boolean | undefined;
  port?: string | undefined;
  host?: string | undefined;
}): string | undefined {
  const tokensFile = values["tokens-file"];
  const noAuth = values["no-auth"] === true;
  if (!values.http) {
    if (tokensFile !== undefined || noAuth || values.port !== undefined || values.host !== undefined)
      return "--tokens-file, --no-auth, --port and --host apply only with --http";
    return undefined;
  }
  if (tokensFile !== undefined && noAuth) return "give either --tokens-file or --no-auth, not both";
  if (tokensFile === undefined && !noAuth) {
    return "--http needs --tokens-file FILE (the bearer tokens allowed in) or --no-auth (anyone who can reach the port; loopback only)";
  }
  const host = values.host ?? "127.0.0.1";
  if (noAuth && !LOOPBACK_HOSTS.has(host)) {
    return `--no-auth serves anyone who reaches the port, so it is refused on --host ${host}; use a loopback host or --tokens-file`;
  }
  return undefined;
}
