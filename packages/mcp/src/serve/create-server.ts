import { ConfigError, TOOL_NAME_PATTERN, type Tool, type ToolProgress } from "@atrium/spec";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { Protocol } from "@modelcontextprotocol/sdk/shared/protocol.js";
import { ErrorCode, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { toolRunner } from "./call-tool.js";
import { type ElicitOptions, elicitingApprover } from "./elicit-approval.js";
import type { FixedServeMcpOptions, ServeMcpOptions } from "./serve-options.js";
import { servedTools } from "./served-tools.js";

/** The tools an options object publishes, refused with a ConfigError when they cannot be served. */
export function checkServedTools(options: ServeMcpOptions): readonly Tool[] {
  if ("openSession" in options) return []; // opened per session, checked then
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
 * `serveMcpHttp` connect it to stdio or HTTP. Each call's context carries `onApproval`, which
 * asks the client through elicitation (`canAskClient: false` where the transport cannot carry
 * that question: every such call is refused, saying why).
 */
export function createMcpServer(
  options: FixedServeMcpOptions,
  { canAskClient }: ElicitOptions = { canAskClient: true },
): Server {
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
    ...(tool.annotations ? { annotations: { ...tool.annotations } } : {}),
  }));
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: listed }));
  const names = () => (runners.size === 0 ? "no tools" : [...runners.keys()].join(", "));
  // The SDK parses tools/call with its own schema before any handler runs and answers a call
  // without a name with -32603 and zod's raw issue dump. Registered one layer down (Protocol,
  // skipping Server's re-parse) with a schema that takes any params, the call is checked here
  // and a bad one gets -32602 with a sentence saying what to send.
  Protocol.prototype.setRequestHandler.call(server, AnyToolCall, async (request, extra) => {
    const params = (request.params ?? {}) as {
      name?: unknown;
      arguments?: unknown;
      _meta?: { progressToken?: string | number };
    };
    if (typeof params.name !== "string" || params.name === "") {
      throw new JsonRpcError(
        ErrorCode.InvalidParams,
        `tools/call needs params.name, the tool to call (this server has: ${names()})`,
      );
    }
    const entry = runners.get(params.name);
    if (!entry) {
      throw new JsonRpcError(
        ErrorCode.InvalidParams,
        `Unknown tool "${params.name}"; this server has: ${names()}`,
      );
    }
    const args = params.arguments;
    if (args !== undefined && (typeof args !== "object" || args === null || Array.isArray(args))) {
      throw new JsonRpcError(
        ErrorCode.InvalidParams,
        `tools/call params.arguments must be an object of the tool's inputs, got ${Array.isArray(args) ? "an array" : args === null ? "null" : typeof args}`,
      );
    }
    const progressToken = params._meta?.progressToken;
    const sent: Promise<void>[] = [];
    const onProgress = ({ progress, total, message }: ToolProgress) => {
      if (progressToken === undefined) return;
      const notification = {
        method: "notifications/progress" as const,
        params: { progressToken, progress, total, message },
      };
      sent.push(extra.sendNotification(notification).catch(() => {}));
    };
    const result = await entry.run(args, {
      signal: extra.signal,
      toolCallId: String(extra.requestId),
      ...(progressToken === undefined ? {} : { onProgress }),
      onApproval: elicitingApprover(server, extra.requestId, { canAskClient }),
    });
    // Progress goes out before the result it belongs to.
    await Promise.all(sent);
    return result;
  });
  options.extend?.(server);
  return server;
}

/** Any tools/call request: its params are checked by the handler, not by a schema parse. */
const AnyToolCall = z.object({ method: z.literal("tools/call"), params: z.unknown().optional() }).loose();

/**
 * A JSON-RPC error the SDK sends as it is. `McpError` would prefix its message with
 * "MCP error <code>: ", and the client's own `McpError` prefixes it again.
 */
class JsonRpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}
