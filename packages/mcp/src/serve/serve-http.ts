import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { errorMessage } from "@atrium/spec";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { isInitializeRequest } from "@modelcontextprotocol/sdk/types.js";
import { DEFAULT_MCP_LIMITS, resolveMcpLimits } from "../limits.js";
import { checkServedTools, createMcpServer } from "./create-server.js";
import type { ServeMcpOptions } from "./served-tools.js";

export type ServeMcpHttpOptions = ServeMcpOptions & {
  /** 0 (the default) picks a free port. */
  port?: number;
  /** Loopback unless told otherwise: a served agent is a remote-code surface. */
  host?: string;
  /** Endpoint path; default "/mcp". */
  path?: string;
  /**
   * Answer each request with plain JSON instead of an SSE stream: about a third faster per
   * call, but progress notifications of a call are then not delivered.
   */
  jsonResponse?: boolean;
  /** A session with no request for this long is closed; default `DEFAULT_MCP_LIMITS.sessionIdleMs`. */
  sessionIdleMs?: number;
};

export interface ServedMcpHttp {
  /** The endpoint, e.g. http://127.0.0.1:43123/mcp. */
  url: string;
  /** Open MCP sessions (one per connected client). */
  readonly sessionCount: number;
  close(): Promise<void>;
}

const LOOPBACK_HOSTS = new Set(["127.0.0.1", "localhost", "::1", "[::1]"]);

/**
 * Serves tools (or an agent as one tool) over streamable HTTP, one MCP session per client.
 * On loopback, requests whose Host header is not loopback are refused, so a web page cannot
 * reach the server through DNS rebinding.
 */
export async function serveMcpHttp(options: ServeMcpHttpOptions): Promise<ServedMcpHttp> {
  const host = options.host ?? "127.0.0.1";
  const path = options.path ?? "/mcp";
  checkServedTools(options); // fail fast on a bad tool set, before listening
  const sessions = new Map<string, { transport: StreamableHTTPServerTransport; lastSeen: number }>();
  // Clients that vanish without ending their session would otherwise fill every one of maxHttpSessions.
  const idleMs = resolveMcpLimits({ sessionIdleMs: options.sessionIdleMs }).sessionIdleMs;
  const sweep = setInterval(
    () => {
      const cutoff = Date.now() - idleMs;
      for (const { transport, lastSeen } of sessions.values()) {
        if (lastSeen < cutoff) void transport.close().catch(() => {});
      }
    },
    Math.max(10, Math.min(idleMs / 2, 60_000)),
  );
  sweep.unref();

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? "/", "http://localhost");
    if (url.pathname !== path) return reply(res, 404, `not found; the MCP endpoint is ${path}`);
    if (LOOPBACK_HOSTS.has(host) && !LOOPBACK_HOSTS.has(hostName(req.headers.host))) {
      return reply(res, 403, "Host header is not loopback");
    }
    const sessionId = req.headers["mcp-session-id"];
    if (typeof sessionId === "string") {
      const session = sessions.get(sessionId);
      if (!session) return jsonRpcError(res, 404, "Session not found; initialize a new one");
      session.lastSeen = Date.now();
      const body = req.method === "POST" ? await readJson(req, res) : undefined;
      if (body === INVALID) return;
      return session.transport.handleRequest(req, res, body);
    }
    if (req.method !== "POST") return jsonRpcError(res, 400, "Missing mcp-session-id header");
    const body = await readJson(req, res);
    if (body === INVALID) return;
    if (!isInitializeRequest(body))
      return jsonRpcError(res, 400, "No session: the first request must be initialize");
    if (sessions.size >= DEFAULT_MCP_LIMITS.maxHttpSessions) {
      return jsonRpcError(
        res,
        503,
        `Too many sessions (${DEFAULT_MCP_LIMITS.maxHttpSessions}); close one and retry`,
      );
    }
    const server = createMcpServer(options);
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: randomUUID,
      enableJsonResponse: options.jsonResponse ?? false,
      onsessioninitialized: (id) => void sessions.set(id, { transport, lastSeen: Date.now() }),
    });
    transport.onclose = () => {
      if (transport.sessionId) sessions.delete(transport.sessionId);
    };
    await server.connect(transport);
    await transport.handleRequest(req, res, body);
  };

  const http = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) jsonRpcError(res, 500, errorMessage(error));
      else res.end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    http.once("error", reject);
    http.listen(options.port ?? 0, host, () => resolve());
  });
  const { port } = http.address() as AddressInfo;
  const shownHost = host.includes(":") ? `[${host}]` : host;
  return {
    url: `http://${shownHost}:${port}${path}`,
    get sessionCount() {
      return sessions.size;
    },
    async close() {
      clearInterval(sweep);
      await Promise.all([...sessions.values()].map(({ transport }) => transport.close().catch(() => {})));
      sessions.clear();
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}

function hostName(header: string | undefined): string {
  if (!header) return "";
  if (header.startsWith("[")) return header.slice(0, header.indexOf("]") + 1);
  return header.split(":")[0]!;
}

const INVALID = Symbol("invalid body");

async function readJson(req: IncomingMessage, res: ServerResponse): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > DEFAULT_MCP_LIMITS.maxHttpBodyBytes) {
      jsonRpcError(res, 413, `Request body over ${DEFAULT_MCP_LIMITS.maxHttpBodyBytes} bytes`);
      return INVALID;
    }
    chunks.push(chunk);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString("utf8"));
  } catch (error) {
    jsonRpcError(res, 400, `Parse error: ${(error as Error).message}`, -32700);
    return INVALID;
  }
}

function jsonRpcError(res: ServerResponse, status: number, message: string, code = -32000): void {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify({ jsonrpc: "2.0", error: { code, message }, id: null }));
}

function reply(res: ServerResponse, status: number, text: string): void {
  res.writeHead(status, { "content-type": "text/plain" });
  res.end(text);
}
