import { serveDocsMcp, serveDocsMcpHttp } from "../mcp/docs-mcp-server.js";
import { STORE_USAGE } from "./store-args.js";
import { prepareStoreCommand, type ShellIo } from "./store-command.js";

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
  const extra = { http: { type: "boolean" }, port: { type: "string" }, host: { type: "string" } } as const;
  const prepared = await prepareStoreCommand("mcp", argv, MCP_USAGE, extra, io, (values) =>
    portOf(values) === undefined ? `--port must be a number from 0 to 65535, got ${values.port}` : undefined,
  );
  if ("exitCode" in prepared) return prepared.exitCode;
  const { values, groups, opened } = prepared;
  try {
    const port = portOf(values) as number;
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

function portOf(values: Record<string, string | boolean | undefined>): number | undefined {
  const port =
    typeof values.port !== "string" ? 0 : values.port.trim() === "" ? Number.NaN : Number(values.port);
  return Number.isInteger(port) && port >= 0 && port <= 65535 ? port : undefined;
}
