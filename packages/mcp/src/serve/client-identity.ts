/**
 * Who an HTTP client is, as its bearer token says. `groups` decide what its session may see
 * (chromafs prunes the docs tree by them; the palace maps them to wings); `name` is for logs
 * and for binding a session to the identity that opened it.
 */
export interface McpIdentity {
  readonly name: string;
  readonly groups: readonly string[];
}

/**
 * The resource-server half of MCP authorization: checks the bearer token of every HTTP
 * request. Resolves to the token's identity, or undefined for a token it does not know.
 */
export interface McpHttpAuth {
  verify(token: string): McpIdentity | undefined | Promise<McpIdentity | undefined>;
}
