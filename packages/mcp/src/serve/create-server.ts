import { ConfigError, TOOL_NAME_PATTERN, type Tool, type ToolProgress } from "@atrium/spec";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
  CallToolRequestSchema,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
} from "@modelcontextprotocol/sdk/types.js";
import { toolRunner } from "./call-tool.js";
import { type ServeMcpOptions, servedTools } from "./served-tools.js";

/** The tools an options object publishes, refused with a ConfigError when they cannot be served. */
export function checkServedTools(options: ServeMcpOptions): readonly Tool[] {
  const tools = servedTools(options);
  for (const tool of tools) {
    if (!TOOL_NAME_PATTERN.test(tool.name)) {
      throw new ConfigError(`serveMcp: tool name "${tool.name}" must match ${TOOL_NAME_PATTERN}`);
    }
    if (tool.inputSchema.type !== "object") {
      throw new ConfigError(
        `serveMcp: tool "${tool.name}" needs an object input schema ({"type": "object", ...})`,
      );
    }
  }
  if (new Set(tools.map((tool) => tool.name)).size !== tools.length) {
    throw new ConfigError("serveMcp: two tools share one name");
  }
  return tools;
}

/**
 * An SDK `Server` publishing Atrium tools, not yet connected to a transport. chromafs and
 * palace add their own resources or prompts to it before connecting; `serveMcp` and
 * `serveMcpHttp` connect it to stdio or HTTP.
 */
export function createMcpServer(options: ServeMcpOptions): Server {
  const tools = checkServedTools(options);
  const runners = new Map(tools.map((tool) => [tool.name, { tool, run: toolRunner(tool) }]));
  const server = new Server(
    { name: options.name, version: options.version },
    { capabilities: { tools: {} }, ...(options.instructions ? { instructions: options.instructions } : {}) },
  );
  const listed = tools.map((tool) => ({
    name: tool.name,
    description: tool.description,
    inputSchema: tool.inputSchema as { type: "object" },
    ...(tool.outputSchema ? { outputSchema: tool.outputSchema as { type: "object" } } : {}),
  }));
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: listed }));
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const entry = runners.get(request.params.name);
    if (!entry) {
      throw new McpError(
        ErrorCode.InvalidParams,
        `Unknown tool "${request.params.name}"; this server has: ${[...runners.keys()].join(", ")}`,
      );
    }
    const progressToken = request.params._meta?.progressToken;
    const sent: Promise<void>[] = [];
    const onProgress = ({ progress, total, message }: ToolProgress) => {
      if (progressToken === undefined) return;
      const notification = {
        method: "notifications/progress" as const,
        params: { progressToken, progress, total, message },
      };
      sent.push(extra.sendNotification(notification).catch(() => {}));
    };
    const result = await entry.run(request.params.arguments, {
      signal: extra.signal,
      toolCallId: String(extra.requestId),
      ...(progressToken === undefined ? {} : { onProgress }),
    });
    // Progress goes out before the result it belongs to.
    await Promise.all(sent);
    return result;
  });
  options.extend?.(server);
  return server;
}
