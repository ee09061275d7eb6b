import { defineCommand, integerOption, UsageError } from "@atrium/kit/cli";
import { loadTokensFile, MCP_HTTP_CLI_OPTIONS, mcpHttpOptionsProblem } from "@atrium/mcp";
import { serveDocsMcp, serveDocsMcpHttp } from "../mcp/docs-mcp-server.js";
import { openStoreFromArgs, parseGroups, STORE_OPTIONS, storeArgs } from "./store-args.js";

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
    ...MCP_HTTP_CLI_OPTIONS,
    "tokens-file": {
      type: "string",
      value: "FILE",
      help: 'bearer tokens allowed over HTTP, stored hashed (see atrium-docs hash-token):\n{"tokens": {"<sha256 hex>": {"identity": "alice", "groups": ["staff"]}}}',
    },
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
  http?: boolean | undefined;
  "tokens-file"?: string | undefined;
  "no-auth"?: boolean | undefined;
  groups?: string | undefined;
  port?: string | undefined;
  host?: string | undefined;
}): string | undefined {
  if (values["tokens-file"] !== undefined && values.groups !== undefined) {
    return "--groups does not apply with --tokens-file: each token's groups decide what its client sees";
  }
  return mcpHttpOptionsProblem(values);
}
