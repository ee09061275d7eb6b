import { type AtriumError, errorMessage, isAtriumError, rethrowIfFatal } from "@atrium/spec";
import type { McpServerConfig } from "../config/server-config.js";
import { McpServerError } from "../errors.js";
import { compileInputSchema, type InputValidator } from "../json-schema-validator.js";
import { resolveMcpLimits } from "../limits.js";
import { McpClient, type McpClientOptions, type McpToolDescription } from "./mcp-client.js";
import { type McpTool, mcpTool } from "./mcp-tool.js";
import { assignToolNames } from "./tool-names.js";

export type McpConnectOptions = McpClientOptions;

export interface McpServerFailure {
  server: string;
  error: AtriumError;
}

/** Several MCP servers at once: their tools, the servers that failed, and one close(). */
export interface McpConnection {
  tools: McpTool[];
  errors: McpServerFailure[];
  /** The servers that connected, by config name. */
  clients: Record<string, McpClient>;
  close(): Promise<void>;
}

/**
 * Connects to every server in parallel. A server that cannot start, never answers or lists a
 * broken tool becomes an entry in `errors` (a broken tool drops only that tool); the other
 * servers' tools work as usual. Only an abort of `options.signal` throws, after reaping
 * every child.
 */
export async function connectMcpServers(
  servers: Record<string, McpServerConfig>,
  options: McpConnectOptions = {},
): Promise<McpConnection> {
  const errors: McpServerFailure[] = [];
  const clients: Record<string, McpClient> = {};
  type Listed = { client: McpClient; description: McpToolDescription; validator: InputValidator };
  // Filled per server, flattened in config order so tool names do not depend on who answered first.
  const listedByServer: Listed[][] = Object.keys(servers).map(() => []);
  const fail = (server: string, error: unknown) =>
    errors.push({
      server,
      error: isAtriumError(error)
        ? error
        : new McpServerError(server, "UNAVAILABLE", errorMessage(error), {
            cause: error,
          }),
    });
  const close = async () => {
    await Promise.all(Object.values(clients).map((client) => client.close()));
  };

  const outcomes = await Promise.allSettled(
    Object.entries(servers).map(async ([server, config], index) => {
      const client = await McpClient.connect(server, config, options);
      clients[server] = client;
      let descriptions: McpToolDescription[];
      try {
        descriptions = await client.listTools({
          timeoutMs: resolveMcpLimits({ connectTimeoutMs: options.connectTimeoutMs }).connectTimeoutMs,
          signal: options.signal,
        });
      } catch (error) {
        delete clients[server];
        await client.close();
        throw error;
      }
      for (const description of descriptions) {
        try {
          listedByServer[index]!.push({
            client,
            description,
            validator: compileInputSchema(description.inputSchema),
          });
        } catch (error) {
          fail(
            server,
            new McpServerError(
              server,
              "VALIDATION",
              `tool "${description.name}" has an ${(error as Error).message}`,
              {
                cause: error,
              },
            ),
          );
        }
      }
    }),
  );
  for (const [i, outcome] of outcomes.entries()) {
    if (outcome.status === "fulfilled") continue;
    const server = Object.keys(servers)[i]!;
    try {
      rethrowIfFatal(outcome.reason);
    } catch (fatal) {
      await close();
      throw fatal;
    }
    fail(server, outcome.reason);
  }

  const listed = listedByServer.flat();
  const names = assignToolNames(
    listed.map(({ client, description }) => ({ server: client.name, mcpName: description.name })),
  );
  const tools = listed.map(({ client, description, validator }, i) =>
    mcpTool(client, description, names[i]!, validator),
  );
  return { tools, errors, clients, close };
}
