import { defineCommand, integerOption, UsageError } from "@atrium/kit/cli";
import { loadTokensFile } from "@atrium/mcp";
import { serveDocsMcp, serveDocsMcpHttp } from "../mcp/docs-mcp-server.js";
import { openStoreFromArgs, parseGroups, STORE_OPTIONS, storeArgs } from "./store-args.js";

const LOOPBACK = new Set(["127.0.0.1", "localhost", "::1"]);

/** `atrium-docs mcp …`: serves until stdin closes (stdio) or SIGTERM/Ctrl-C (--http). */
export const mcpCommand = defineCommand({
  name: "mcp",
  summary: "serve that shell and search as an MCP server (stdio or --http)",
  usage: [
    "(--collection <name> [--chroma-url URL | --path DIR] | --dir <folder>) [--groups a,b]",
    "... --http (--tokens-file FILE | --no-auth [--groups a,b]) [--port N] [--host H]",
  ],
  description: `Serves the docs shell as an MCP server with two tools: bash (a command over the docs) and search.
Over stdio by default (what MCP hosts launch; the local user, with --groups). --http serves
streamable HTTP: each client authenticates with a bearer token from --tokens-file and sees what
its token's groups allow; --no-auth serves anyone who reaches the port, on loopback only.
SIGTERM or Ctrl-C stops taking requests, lets calls in flight finish (up to 10 s), then exits.
Each client's commands run on worker threads (one per core, a session pinned to one), in order,
taking turns with the other clients, so one client's heavy command never stalls the others.
Over HTTP, GET /health (same authentication) reports the store: 200 when it answers, else 503.
An embedded Chroma server (--path) that dies is restarted; each restart is logged on stderr.`,
  options: {
    ...STORE_OPTIONS,
    groups: { type: "string", value: "a,b", help: "the user's groups (stdio, or --http --no-auth)" },
    http: { type: "boolean", help: "serve streamable HTTP instead of stdio; prints the endpoint URL" },
    "tokens-file": {
      type: "string",
      value: "FILE",
      help: 'bearer tokens allowed over HTTP, stored hashed (see atrium-docs hash-token):\n{"tokens": {"<sha256 hex>": {"identity": "alice", "groups": ["staff"]}}}',
    },
    "no-auth": {
      type: "boolean",
      help: "serve HTTP without authentication (refused unless --host is loopback)",
    },
    port: { type: "string", value: "N", help: "HTTP port (default: a free one)" },
    host: { type: "string", value: "H", help: "HTTP interface (default 127.0.0.1)" },
  },
  async run({ values }, io) {
    // Every option is checked, and the tokens file read, before any store or server starts.
    const port = integerOption(values.port, "--port", { min: 0, max: 65_535 }) ?? 0;
    const problem = authProblem(values);
    if (problem !== undefined) throw new UsageError(problem);
    const tokensFile = values["tokens-file"];
    const auth = tokensFile === undefined ? undefined : loadTokensFile(tokensFile);
    const groups = parseGroups(values.groups);
    const opened = await openStoreFromArgs(storeArgs(values), io.env);
    // The embedded server restarts itself when it dies; say so where the operator looks.
    opened.server?.onEvent((event) => io.stderr.write(`atrium-docs mcp: ${event.message}\n`));
    try {
      if (values.http) {
        const served = await serveDocsMcpHttp({
          store: opened.store,
          groups,
          port,
          host: values.host,
          auth,
          health: () => opened.health(),
        });
        io.stdout.write(`${served.url}\n`);
        await new Promise<void>((resolve) => {
          process.once("SIGINT", resolve);
          process.once("SIGTERM", resolve);
        });
        await served.close(); // lets calls in flight finish, answers the rest
      } else {
        const served = await serveDocsMcp({ store: opened.store, groups });
        await served.closed;
      }
      return 0;
    } finally {
      await opened.close();
    }
  },
});

/** Who may connect must be said explicitly for HTTP, and only for HTTP. */
function authProblem(values: {
  http?: boolean;
  "tokens-file"?: string;
  "no-auth"?: boolean;
  groups?: string;
  host?: string;
}): string | undefined {
  const tokensFile = values["tokens-file"];
  const noAuth = values["no-auth"] === true;
  if (!values.http) {
    if (tokensFile !== undefined || noAuth) return "--tokens-file and --no-auth apply only with --http";
    return undefined;
  }
  if (tokensFile !== undefined && noAuth) return "give either --tokens-file or --no-auth, not both";
  if (tokensFile === undefined && !noAuth) {
    return "--http needs --tokens-file FILE (the bearer tokens allowed in) or --no-auth (anyone who can reach the port; loopback only)";
  }
  if (tokensFile !== undefined && values.groups !== undefined) {
    return "--groups does not apply with --tokens-file: each token's groups decide what its client sees";
  }
  const host = typeof values.host === "string" ? values.host : "127.0.0.1";
  if (noAuth && !LOOPBACK.has(host)) {
    return `--no-auth serves anyone who reaches the port, so it is refused on --host ${host}; use a loopback host or --tokens-file`;
  }
  return undefined;
}
