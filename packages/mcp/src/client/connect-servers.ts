import { type AtriumError, ConfigError, errorMessage, isAtriumError, rethrowIfFatal } from "@atrium/spec";
import { checkApprovalPolicy } from "../config/approval-policy.js";
import type { McpServerConfig } from "../config/server-config.js";
import { McpConnectError, McpServerError } from "../errors.js";
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

/**
 * Several MCP servers at once: their tools, the servers that failed, and one close().
 * `await using mcp = await connectMcpServers(...)` closes it at the end of the block.
 */
export interface McpConnection extends AsyncDisposable {
  tools: McpTool[];
  errors: McpServerFailure[];
  /** The servers that connected, by config name. */
  clients: Record<string, McpClient>;
  close(): Promise<void>;
}

/** The servers by name, or the whole `{ "mcpServers": { ... } }` shape of a config file. */
export type McpServersInput =
  | Record<string, McpServerConfig>
  | { mcpServers: Record<string, McpServerConfig> };

/**
 * Connects to every server in parallel. A server that cannot start, never answers or lists a
 * broken tool becomes an entry in `errors` (a broken tool drops only that tool); the other
 * servers' tools work as usual. It throws `McpConnectError` when every server asked for failed
 * (unless all of them are marked `optional`), so an agent never runs silently without tools;
 * an abort of `options.signal` throws too, after reaping every child.
 */
export async function connectMcpServers(
  input: McpServersInput,
  options: McpConnectOptions = {},
): Promise<McpConnection> {
  const servers = serversOf(input);
  for (const [server, config] of Object.entries(servers)) checkApprovalPolicy(server, config?.approval);
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

  const requested = Object.keys(servers);
  const failed = new Set(errors.map((failure) => failure.server));
  const everyOneFailed = requested.length > 0 && requested.every((server) => failed.has(server));
  if (everyOneFailed && !requested.every((server) => servers[server]!.optional === true)) {
    await close();
    throw new McpConnectError(errors);
  }

  const listed = listedByServer.flat();
  const names = assignToolNames(
    listed.map(({ client, description }) => ({ server: client.name, mcpName: description.name })),
  );
  const tools = listed.map(({ client, description, validator }, i) =>
    mcpTool(client, description, names[i]!, validator, servers[client.name]?.approval),
  );
  return { tools, errors, clients, close, [Symbol.asyncDispose]: close };
}

/**
 * Accepts the config file's `{ mcpServers: {...} }` as well as the map itself: passing the
 * parsed file whole is the natural first try, and reading it as one server named
 * "mcpServers" would fail with a confusing message.
 */
function serversOf(input: McpServersInput): Record<string, McpServerConfig> {
  if (typeof input !== "object" || input === null || Array.isArray(input)) {
    throw new ConfigError(
      'connectMcpServers takes an object of servers by name: { everything: { command: "npx", args: [...] } } (or a config file\'s { mcpServers: { ... } })',
    );
  }
  const keys = Object.keys(input);
  const wrapped = (input as { mcpServers?: unknown }).mcpServers;
  if (
    keys.length === 1 &&
    typeof wrapped === "object" &&
    wrapped !== null &&
    !("command" in wrapped) &&
    !("url" in wrapped)
  ) {
    return wrapped as Record<string, McpServerConfig>;
  }
  return input as Record<string, McpServerConfig>;
}
