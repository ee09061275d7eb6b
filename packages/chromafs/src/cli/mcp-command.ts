import { loadTokensFile, type TokensAuth } from "@atrium/mcp";
import { errorMessage } from "@atrium/spec";
import { serveDocsMcp, serveDocsMcpHttp } from "../mcp/docs-mcp-server.js";
import { STORE_USAGE } from "./store-args.js";
import { prepareStoreCommand, type ShellIo } from "./store-command.js";

export const MCP_USAGE = `Usage: atrium-docs mcp (--collection <name> [--chroma-url URL | --path DIR] | --dir <folder>) [--groups a,b]
       atrium-docs mcp ... --http (--tokens-file FILE | --no-auth [--groups a,b]) [--port N] [--host H]

Serves the docs shell as an MCP server with two tools: bash (a command over the docs) and search.
Over stdio by default (what MCP hosts launch; the local user, with --groups). --http serves
streamable HTTP: each client authenticates with a bearer token from --tokens-file and sees what
its token's groups allow; --no-auth serves anyone who reaches the port, on loopback only.
SIGTERM or Ctrl-C stops taking requests, lets calls in flight finish (up to 10 s), then exits.
Each client's commands run on worker threads (one per core, a session pinned to one), in order,
taking turns with the other clients, so one client's heavy command never stalls the others.
Over HTTP, GET /health (same authentication) reports the store: 200 when it answers, else 503.
An embedded Chroma server (--path) that dies is restarted; each restart is logged on stderr.

${STORE_USAGE}
  --groups a,b          the user's groups (stdio, or --http --no-auth)
  --http                serve streamable HTTP instead of stdio; prints the endpoint URL
  --tokens-file FILE    bearer tokens allowed over HTTP, stored hashed (see atrium-docs hash-token):
                        {"tokens": {"<sha256 hex>": {"identity": "alice", "groups": ["staff"]}}}
  --no-auth             serve HTTP without authentication (refused unless --host is loopback)
  --port N              HTTP port (default: a free one)
  --host H              HTTP interface (default 127.0.0.1)
  -h, --help            show this help
`;

const LOOPBACK = new Set(["127.0.0.1", "localhost", "::1"]);

/** `atrium-docs mcp …`; resolves with the exit code once the server ends. */
export async function runMcpCommand(argv: string[], io: ShellIo): Promise<number> {
  const extra = {
    http: { type: "boolean" },
    port: { type: "string" },
    host: { type: "string" },
    "tokens-file": { type: "string" },
    "no-auth": { type: "boolean" },
  } as const;
  let auth: TokensAuth | undefined;
  const prepared = await prepareStoreCommand("mcp", argv, MCP_USAGE, extra, io, (values) => {
    if (portOf(values) === undefined) return `--port must be a number from 0 to 65535, got ${values.port}`;
    const problem = authProblem(values);
    if (problem !== undefined || typeof values["tokens-file"] !== "string") return problem;
    try {
      auth = loadTokensFile(values["tokens-file"]); // read before any store or server starts
    } catch (error) {
      return errorMessage(error);
    }
    return undefined;
  });
  if ("exitCode" in prepared) return prepared.exitCode;
  const { values, groups, opened } = prepared;
  // The embedded server restarts itself when it dies; say so where the operator looks.
  opened.server?.onEvent((event) => io.stderr.write(`atrium-docs mcp: ${event.message}\n`));
  try {
    const port = portOf(values) as number;
    if (values.http) {
      const host = typeof values.host === "string" ? values.host : undefined;
      const served = await serveDocsMcpHttp({
        store: opened.store,
        groups,
        port,
        host,
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
  } catch (error) {
    io.stderr.write(`atrium-docs mcp: ${errorMessage(error)}\n`);
    return 2;
  } finally {
    await opened.close();
  }
}

/** Who may connect must be said explicitly for HTTP, and only for HTTP. */
function authProblem(values: Record<string, string | boolean | undefined>): string | undefined {
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

function portOf(values: Record<string, string | boolean | undefined>): number | undefined {
  const port =
    typeof values.port !== "string" ? 0 : values.port.trim() === "" ? Number.NaN : Number(values.port);
  return Number.isInteger(port) && port >= 0 && port <= 65535 ? port : undefined;
}
