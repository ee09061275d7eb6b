export { toToolResult } from "./client/call-result.js";
export {
  connectMcpServers,
  type McpConnection,
  type McpConnectOptions,
  type McpServerFailure,
  type McpServersInput,
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
export {
  DEFAULT_MCP_APPROVAL_POLICY,
  type McpApprovalPolicy,
  mayDestroy,
} from "./config/approval-policy.js";
export { defaultServerName, parseMcpCommandLine } from "./config/command-line.js";
export { loadMcpConfigFile, parseMcpConfig } from "./config/load-config-file.js";
export type { McpHttpServerConfig, McpServerConfig, McpStdioServerConfig } from "./config/server-config.js";
export { McpConnectError, McpServerError } from "./errors.js";
export { compileInputSchema } from "./json-schema-validator.js";
export * as limits from "./limits.js";
export { toCallToolResult } from "./serve/call-tool.js";
export type { McpHttpAuth, McpIdentity } from "./serve/client-identity.js";
export { createMcpServer } from "./serve/create-server.js";
export {
  approvalQuestion,
  CLIENT_CANNOT_ELICIT,
  JSON_RESPONSES_CANNOT_ELICIT,
  type ServedToolContext,
} from "./serve/elicit-approval.js";
export { LOOPBACK_HOSTS, MCP_HTTP_CLI_OPTIONS, mcpHttpOptionsProblem } from "./serve/http-cli-options.js";
export {
  type HealthReport,
  type ServedMcpHttp,
  type ServeMcpHttpOptions,
  serveMcpHttp,
} from "./serve/serve-http.js";
export type {
  FixedServeMcpOptions,
  ServeAgentOptions,
  ServeMcpOptions,
  ServeSessionOptions,
  ServeToolsOptions,
  SessionTools,
} from "./serve/serve-options.js";
export { type ServedMcp, type StdioStreams, serveMcp } from "./serve/serve-stdio.js";
export { agentTool } from "./serve/served-tools.js";
export {
  hashNewToken,
  hashToken,
  loadTokensFile,
  MIN_TOKEN_CHARS,
  parseTokens,
  type TokensAuth,
} from "./serve/tokens-file.js";
