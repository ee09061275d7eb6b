import type { IncomingMessage, ServerResponse } from "node:http";
import type { McpHttpAuth, McpIdentity } from "./client-identity.js";

const REALM = "mcp";

/**
 * The resource-server check of MCP authorization (RFC 6750 bearer tokens): resolves to the
 * request's identity, or answers 401 with a `WWW-Authenticate: Bearer` challenge and resolves to
 * undefined. The SDK's `requireBearerAuth` does the same for Express and insists on token expiry
 * times; these tokens come from a file and do not expire, and this server is plain `node:http`.
 */
export async function authenticate(
  req: IncomingMessage,
  res: ServerResponse,
  auth: McpHttpAuth,
): Promise<McpIdentity | undefined> {
  const header = req.headers.authorization;
  if (!header) {
    // RFC 6750 §3.1: a request with no credentials gets the challenge without an error code.
    challenge(res, undefined, "Send Authorization: Bearer <token>");
    return undefined;
  }
  const match = /^Bearer +([\x21-\x7e]+) *$/i.exec(header);
  if (!match) {
    challenge(res, "invalid_token", "The Authorization header must be 'Bearer <token>'");
    return undefined;
  }
  const identity = await auth.verify(match[1]!);
  if (!identity) challenge(res, "invalid_token", "Unknown bearer token");
  return identity;
}

function challenge(res: ServerResponse, error: string | undefined, description: string): void {
  const params = [`realm="${REALM}"`];
  if (error) params.push(`error="${error}"`, `error_description="${description}"`);
  res.writeHead(401, {
    "content-type": "application/json",
    "www-authenticate": `Bearer ${params.join(", ")}`,
  });
  res.end(JSON.stringify({ error: error ?? "unauthorized", error_description: description }));
}
