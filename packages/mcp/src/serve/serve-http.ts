import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { ConfigError, errorMessage } from "@atrium/spec";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { isInitializeRequest } from "@modelcontextprotocol/sdk/types.js";
import { DEFAULT_MCP_LIMITS, resolveMcpLimits } from "../limits.js";
import { authenticate } from "./bearer-auth.js";
import type { McpHttpAuth, McpIdentity } from "./client-identity.js";
import { checkServedTools, createMcpServer } from "./create-server.js";
import { HttpSessions } from "./http-sessions.js";
import { InFlightRequests } from "./in-flight-requests.js";
import type { ServeMcpOptions } from "./serve-options.js";
import { type OpenedSession, openSessionTools } from "./session-tools.js";

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
  /**
   * Bearer-token authentication (`loadTokensFile(path)` gives one): every request must carry a
   * token it knows, each session belongs to the identity that opened it, and `openSession` gets
   * that identity. Without it the server serves anyone who reaches it, which is refused on a
   * host that is not loopback.
   */
  auth?: McpHttpAuth;
  /** A session with no request open for this long is closed; default `sessionIdleMs`. */
  sessionIdleMs?: number;
  /** Concurrent sessions; default `maxHttpSessions`. */
  maxSessions?: number;
  /** With `auth`: sessions one identity may hold at once (default: all of them); its idle ones make room first. */
  maxSessionsPerIdentity?: number;
  /** How long `close()` lets calls in flight finish before answering them with an error; default `shutdownGraceMs`. */
  shutdownGraceMs?: number;
  /**
   * What `GET /health` answers (as JSON; 200 when `ok`, else 503), behind the same Host check
   * and authentication as the endpoint; without it there is no /health.
   */
  health?: () => HealthReport | Promise<HealthReport>;
};

/** What a served program says about its own health at `GET /health`. */
export type HealthReport = { ok: boolean } & Record<string, unknown>;

/** `await using served = await serveMcpHttp(...)` closes it at the end of the block. */
export interface ServedMcpHttp extends AsyncDisposable {
  /** The endpoint, e.g. http://127.0.0.1:43123/mcp. */
  url: string;
  /** Open MCP sessions (one per connected client). */
  readonly sessionCount: number;
  /** JSON-RPC requests received and not yet answered. */
  readonly inFlightCount: number;
  /**
   * Stops taking connections and requests (they get 503), lets calls in flight finish for up
   * to `shutdownGraceMs`, answers the rest with an error, then ends every session.
   */
  close(): Promise<void>;
}

const LOOPBACK_HOSTS = new Set(["127.0.0.1", "localhost", "::1", "[::1]"]);

/** Time the error replies of a shutdown get to reach their clients before sockets are closed. */
const SHUTDOWN_FLUSH_MS = 1_000;

/**
 * Serves tools (or an agent as one tool) over streamable HTTP, one MCP session per client.
 * On loopback, requests whose Host header is not loopback are refused, so a web page cannot
 * reach the server through DNS rebinding.
 */
export async function serveMcpHttp(options: ServeMcpHttpOptions): Promise<ServedMcpHttp> {
  const host = options.host ?? "127.0.0.1";
  const path = options.path ?? "/mcp";
  const { auth } = options;
  if (!auth && !LOOPBACK_HOSTS.has(host)) {
    throw new ConfigError(
      `serveMcpHttp: serving without authentication is allowed on loopback only, not on host "${host}"; pass auth (a tokens file) or serve on 127.0.0.1`,
    );
  }
  checkServedTools(options); // fail fast on a bad tool set, before listening
  const limits = resolveMcpLimits({
    sessionIdleMs: options.sessionIdleMs,
    maxHttpSessions: options.maxSessions,
    maxHttpSessionsPerIdentity: options.maxSessionsPerIdentity,
    shutdownGraceMs: options.shutdownGraceMs,
  });
  const sessions = new HttpSessions(limits.maxHttpSessions, limits.sessionIdleMs);
  const inFlight = new InFlightRequests();
  let closing = false;

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? "/", "http://localhost");
    const health = url.pathname === "/health" && req.method === "GET" ? options.health : undefined;
    if (url.pathname !== path && !health) return reply(res, 404, `not found; the MCP endpoint is ${path}`);
    if (LOOPBACK_HOSTS.has(host) && !LOOPBACK_HOSTS.has(hostName(req.headers.host))) {
      return reply(res, 403, "Host header is not loopback");
    }
    if (closing) {
      res.setHeader("connection", "close");
      return jsonRpcError(res, 503, "The server is shutting down; retry on a new server");
    }
    let identity: McpIdentity | undefined;
    if (auth) {
      identity = await authenticate(req, res, auth);
      if (!identity) return;
    }
    if (health) {
      const report = await health();
      res.writeHead(report.ok ? 200 : 503, { "content-type": "application/json" });
      return res.end(JSON.stringify(report));
    }
    const sessionId = req.headers["mcp-session-id"];
    if (typeof sessionId === "string") {
      const session = sessions.get(sessionId);
      if (!session) return jsonRpcError(res, 404, "Session not found; initialize a new one");
      if (!sameIdentity(session.identity, identity)) {
        return jsonRpcError(res, 403, "This session belongs to another identity; initialize your own");
      }
      sessions.begin(session, res);
      const body = req.method === "POST" ? await readJson(req, res) : undefined;
      if (body === INVALID) return;
      inFlight.track(session.transport, body, res);
      return session.transport.handleRequest(req, res, body);
    }
    if (req.method !== "POST") return jsonRpcError(res, 400, "Missing mcp-session-id header");
    const body = await readJson(req, res);
    if (body === INVALID) return;
    if (!isInitializeRequest(body))
      return jsonRpcError(res, 400, "No session: the first request must be initialize");
    // One identity's quota first, so its own idle sessions make room before anyone else's.
    const quota = limits.maxHttpSessionsPerIdentity;
    if (identity && sessions.countOf(identity.name) >= quota && !sessions.evictOldestIdle(identity.name)) {
      return jsonRpcError(
        res,
        429,
        `${identity.name} already holds ${quota} sessions, each with a request open; end one (DELETE with its mcp-session-id) before opening another`,
      );
    }
    if (sessions.size >= sessions.max && !sessions.evictOldestIdle()) {
      return jsonRpcError(
        res,
        503,
        `Too many sessions (${sessions.max}), each with a request open; retry when one ends`,
      );
    }
    await startSession(req, res, body, identity);
  };

  const startSession = async (
    req: IncomingMessage,
    res: ServerResponse,
    body: unknown,
    identity: McpIdentity | undefined,
  ) => {
    const id = randomUUID();
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => id,
      enableJsonResponse: options.jsonResponse ?? false,
    });
    // In the table before anything is awaited, so concurrent initializes count against the limit.
    const session = sessions.add(id, transport, identity);
    sessions.begin(session, res);
    let opened: OpenedSession | undefined;
    let ended = false;
    transport.onclose = () => {
      ended = true;
      sessions.delete(id);
      void opened?.close().catch(() => {});
    };
    try {
      opened = await openSessionTools(options, identity);
      // Closed while its tools were opening (the server is shutting down): release them now.
      if (ended) await opened.close();
      // Plain JSON responses carry no request to the client during a call: nobody can be asked.
      await createMcpServer(opened.options, { canAskClient: options.jsonResponse !== true }).connect(
        transport,
      );
      inFlight.track(transport, body, res);
      await transport.handleRequest(req, res, body);
    } finally {
      if (transport.sessionId === undefined) await transport.close(); // the session never started
    }
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
  let closed: Promise<void> | undefined;
  const served: ServedMcpHttp = {
    url: `http://${shownHost}:${port}${path}`,
    get sessionCount() {
      return sessions.size;
    },
    get inFlightCount() {
      return inFlight.size;
    },
    close() {
      closed ??= (async () => {
        closing = true;
        const stopped = new Promise<void>((resolve) => http.close(() => resolve()));
        if (!(await inFlight.settled(limits.shutdownGraceMs))) {
          await inFlight.failAll(
            `The server is shutting down; the call did not finish within ${limits.shutdownGraceMs} ms`,
          );
          await inFlight.settled(SHUTDOWN_FLUSH_MS);
        }
        await sessions.closeAll();
        http.closeAllConnections();
        await stopped;
      })();
      return closed;
    },
    [Symbol.asyncDispose]: () => served.close(),
  };
  return served;
}

/**
 * Whether a request may use a session: the identity that opened it, with the same groups and
 * grants (two tokens sharing a name but not their rights must not share sessions).
 */
function sameIdentity(a: McpIdentity | undefined, b: McpIdentity | undefined): boolean {
  if (a === b) return true;
  if (!a || !b || a.name !== b.name || a.groups.length !== b.groups.length) return false;
  if (JSON.stringify(a.grants ?? null) !== JSON.stringify(b.grants ?? null)) return false;
  return a.groups.every((group) => b.groups.includes(group));
}

function hostName(header: string | undefined): string {
  if (!header) return "";
  if (header.startsWith("[")) return header.slice(0, header.indexOf("]") + 1);
  return header.split(":")[0]!;
}

const INVALID = Symbol("invalid body");

async function readJson(req: IncomingMessage, res: ServerResponse): Promise<unknown> {
  // Read with events, not an async iterator: leaving a `for await` destroys the request, and
  // with it the socket, which is what reset connections after a 413.
  const body = await new Promise<Buffer | typeof INVALID>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= DEFAULT_MCP_LIMITS.maxHttpBodyBytes) {
        chunks.push(chunk);
        return;
      }
      req.off("data", onData).off("end", onEnd).off("error", reject);
      refuseTooLarge(req, res);
      resolve(INVALID);
    };
    const onEnd = () => resolve(Buffer.concat(chunks));
    req.on("data", onData).once("end", onEnd).once("error", reject);
  });
  if (body === INVALID) return INVALID;
  try {
    return JSON.parse(body.toString("utf8"));
  } catch (error) {
    jsonRpcError(res, 400, `Parse error: ${(error as Error).message}`, -32700);
    return INVALID;
  }
}

/** How long, and how many more bytes, a refused body is read and dropped before the socket is cut. */
const DRAIN_AFTER_413_MS = 5_000;
const DRAIN_AFTER_413_BYTES = 64 * 1024 * 1024;

/**
 * Answers 413 and ends the connection cleanly. The rest of the body is still on its way: the
 * server says `connection: close` (not keep-alive, since the bytes left would be read as the
 * next request), then reads and drops what the client still sends (a lingering close) so it
 * gets the 413 and a normal end instead of a reset, which closing with unread data causes.
 * A client that keeps sending past the bounds is cut off.
 */
function refuseTooLarge(req: IncomingMessage, res: ServerResponse): void {
  res.shouldKeepAlive = false;
  res.setHeader("connection", "close");
  jsonRpcError(res, 413, `Request body over ${DEFAULT_MCP_LIMITS.maxHttpBodyBytes} bytes`);
  let dropped = 0;
  const cut = setTimeout(() => req.socket.destroy(), DRAIN_AFTER_413_MS);
  cut.unref();
  req.on("data", (chunk: Buffer) => {
    dropped += chunk.length;
    if (dropped > DRAIN_AFTER_413_BYTES) req.socket.destroy();
  });
  req.once("end", () => clearTimeout(cut));
  req.once("close", () => clearTimeout(cut));
  req.on("error", () => {}); // a client that gives up mid-body: nothing left to answer
  req.resume();
}

function jsonRpcError(res: ServerResponse, status: number, message: string, code = -32000): void {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify({ jsonrpc: "2.0", error: { code, message }, id: null }));
}

function reply(res: ServerResponse, status: number, text: string): void {
  res.writeHead(status, { "content-type": "text/plain" });
  res.end(text);
}
