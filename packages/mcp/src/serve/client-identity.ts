/**
 * Who an HTTP client is, as its bearer token says. `groups` decide what its session may see
 * (chromafs prunes the docs tree by them; the palace maps them to wings); `name` is for logs
 * and for binding a session to the identity that opened it.
 */
export interface McpIdentity {
  readonly name: string;
  readonly groups: readonly string[];
  /**
   * What a server that keeps per-identity data lets it do, as the tokens file gives it (the
   * palace reads `{ read, write, admin }` over wings). Opaque here: each server checks its own.
   */
  readonly grants?: Readonly<Record<string, unknown>>;
}

/**
 * The resource-server half of MCP authorization: checks the bearer token of every HTTP
 * request. Resolves to the token's identity, or undefined for a token it does not know.
 */
export interface McpHttpAuth {
  verify(token: string): McpIdentity | undefined | Promise<McpIdentity | undefined>;
}
