import { parseArgs } from "node:util";
import { serveDocsMcp, serveDocsMcpHttp } from "../mcp/docs-mcp-server.js";
import type { ShellIo } from "./sh-command.js";
import { openStoreFromArgs, STORE_OPTIONS, STORE_USAGE, storeArgs } from "./store-args.js";

export const MCP_USAGE = `Usage: atrium-docs mcp (--collection <name> [--chroma-url URL | --path DIR] | --dir <folder>) [--groups a,b] [--http [--port N] [--host H]]

Serves the docs shell as an MCP server with two tools: bash (a command over the docs) and search.
Over stdio by default (what MCP hosts launch); --http serves streamable HTTP on loopback.

${STORE_USAGE}
  --groups a,b          the user's groups
  --http                serve streamable HTTP instead of stdio; prints the endpoint URL
  --port N              HTTP port (default: a free one)
  --host H              HTTP interface (default 127.0.0.1)
  -h, --help            show this help
`;

/** `atrium-docs mcp …`; resolves with the exit code once the server ends. */
export async function runMcpCommand(argv: string[], io: ShellIo): Promise<number> {
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        ...STORE_OPTIONS,
        groups: { type: "string" },
        http: { type: "boolean" },
        port: { type: "string" },
        host: { type: "string" },
        help: { type: "boolean", short: "h" },
      },
    }));
  } catch (error) {
    io.stderr.write(`atrium-docs mcp: ${(error as Error).message}\n\n${MCP_USAGE}`);
    return 2;
  }
  if (values.help) {
    io.stdout.write(MCP_USAGE);
    return 0;
  }
  const port = typeof values.port === "string" ? Number(values.port) : 0;
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    io.stderr.write(`atrium-docs mcp: --port must be a number from 0 to 65535, got ${values.port}\n`);
    return 2;
  }
  const groups = typeof values.groups === "string" ? values.groups.split(",").filter(Boolean) : [];
  let opened: Awaited<ReturnType<typeof openStoreFromArgs>>;
  try {
    opened = await openStoreFromArgs(storeArgs(values));
  } catch (error) {
    io.stderr.write(`atrium-docs mcp: ${(error as Error).message}\n`);
    return 2;
  }
  try {
    if (values.http) {
      const host = typeof values.host === "string" ? values.host : undefined;
      const served = await serveDocsMcpHttp({ store: opened.store, groups, port, host });
      io.stdout.write(`${served.url}\n`);
      await new Promise<void>((resolve) => {
        process.once("SIGINT", resolve);
        process.once("SIGTERM", resolve);
      });
      await served.close();
    } else {
      const served = await serveDocsMcp({ store: opened.store, groups });
      await served.closed;
    }
    return 0;
  } catch (error) {
    io.stderr.write(`atrium-docs mcp: ${(error as Error).message}\n`);
    return 2;
  } finally {
    await opened.close();
  }
}
