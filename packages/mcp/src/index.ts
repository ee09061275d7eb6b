export { toToolResult } from "./client/call-result.js";
export {
  connectMcpServers,
  type McpConnection,
  type McpConnectOptions,
  type McpServerFailure,
} from "./client/connect-servers.js";
export {
  type McpCallOptions,
  McpClient,
  type McpClientOptions,
  type McpToolDescription,
  type McpTransportKind,
} from "./client/mcp-client.js";
export type { McpTool } from "./client/mcp-tool.js";
export { assignToolNames, sanitizeToolName } from "./client/tool-names.js";
export { defaultServerName, parseMcpCommandLine } from "./config/command-line.js";
export { loadMcpConfigFile, parseMcpConfig } from "./config/load-config-file.js";
export type { McpHttpServerConfig, McpServerConfig, McpStdioServerConfig } from "./config/server-config.js";
export { McpServerError } from "./errors.js";
export { compileInputSchema } from "./json-schema-validator.js";
export * as limits from "./limits.js";
