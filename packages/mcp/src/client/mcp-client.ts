import { AbortError, ClosedError, rethrowIfFatal } from "@atrium/spec";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
import {
  StreamableHTTPClientTransport,
  StreamableHTTPError,
} from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { FetchLike, Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import {
  type CallToolResult,
  ErrorCode,
  type GetPromptResult,
  McpError,
  type Tool as McpToolDescription,
  type Prompt,
  type ReadResourceResult,
  type Resource,
} from "@modelcontextprotocol/sdk/types.js";
import { isStdioConfig, type McpHttpServerConfig, type McpServerConfig } from "../config/server-config.js";
import { McpServerError } from "../errors.js";
import { DEFAULT_MCP_LIMITS, resolveMcpLimits } from "../limits.js";
import { backgroundStreamFetch } from "./background-stream-fetch.js";
import { boundedFetch } from "./bounded-fetch.js";
import { type CallSite, callFailure } from "./call-errors.js";
import { ProgressOrderedTransport } from "./progress-ordered-transport.js";
import { StdioProcessTransport } from "./stdio-transport.js";

export type { McpToolDescription };

export interface McpClientOptions {
  /** Spawn + initialize handshake; default `DEFAULT_MCP_LIMITS.connectTimeoutMs`. */
  connectTimeoutMs?: number;
  /** Each request without progress; default `DEFAULT_MCP_LIMITS.callTimeoutMs`. */
  callTimeoutMs?: number;
  /** How this client introduces itself to servers. */
  clientInfo?: { name: string; version: string };
  /** Receives a stdio server's stderr (kept out of the host's terminal otherwise). */
  onStderr?: (server: string, chunk: string) => void;
  signal?: AbortSignal;
}

export interface McpCallOptions {
  signal?: AbortSignal;
  timeoutMs?: number;
  onProgress?: (progress: { progress: number; total?: number; message?: string }) => void;
}

export type McpTransportKind = "stdio" | "streamable-http" | "sse";

/** What every request hands the SDK: bounded, cancellable, progress-aware. */
interface SdkRequestOptions {
  signal?: AbortSignal;
  timeout: number;
  resetTimeoutOnProgress: boolean;
  maxTotalTimeout: number;
  onprogress?: McpCallOptions["onProgress"];
}

const DEFAULT_CLIENT_INFO = { name: "atrium", version: "0.1.0" };

/**
 * One connected MCP server. A thin layer over the SDK's `Client` that adds what an agent host
 * needs: bounded waits, errors naming the server, and a stdio child that is always reaped.
 */
export class McpClient {
  private closed = false;
  #sdk: Client;
  private transport: Transport;
  #renewing: Promise<void> | undefined;

  private constructor(
    readonly name: string,
    readonly transportKind: McpTransportKind,
    session: Connected,
    private readonly callTimeoutMs: number,
    /** Opens a fresh streamable-HTTP session when the server has forgotten ours. */
    private readonly reopen?: () => Promise<Connected>,
    /** Why an HTTP connection was dropped by this side (a message over the size limit). */
    private readonly dropReason?: () => string | undefined,
  ) {
    this.#sdk = session.sdk;
    this.transport = session.transport;
  }

  /** The SDK client of the current session, for anything this wrapper does not cover. */
  get sdk(): Client {
    return this.#sdk;
  }

  private get process(): StdioProcessTransport | undefined {
    const inner = this.transport instanceof ProgressOrderedTransport ? this.transport.inner : this.transport;
    return inner instanceof StdioProcessTransport ? inner : undefined;
  }

  /** The stdio server's process id (its process group id too); undefined for HTTP servers. */
  get pid(): number | undefined {
    return this.process?.pid;
  }

  get serverInfo(): { name: string; version: string } | undefined {
    return this.sdk.getServerVersion();
  }

  get instructions(): string | undefined {
    return this.sdk.getInstructions();
  }

  static async connect(
    name: string,
    config: McpServerConfig,
    options: McpClientOptions = {},
  ): Promise<McpClient> {
    const { connectTimeoutMs, callTimeoutMs } = resolveMcpLimits({
      connectTimeoutMs: options.connectTimeoutMs,
      callTimeoutMs: options.callTimeoutMs,
    });
    const open = async (inner: Transport, signal?: AbortSignal): Promise<Connected> => {
      const transport = new ProgressOrderedTransport(inner);
      const sdk = new Client(options.clientInfo ?? DEFAULT_CLIENT_INFO, { capabilities: {} });
      try {
        await sdk.connect(transport, { timeout: connectTimeoutMs, signal });
        return { sdk, transport };
      } catch (error) {
        await transport.close().catch(() => {});
        throw error;
      }
    };
    const attempt: Attempt = async (kind, makeTransport, dropReason) => {
      const session = await open(makeTransport(), options.signal);
      const reopen = kind === "streamable-http" ? () => open(makeTransport()) : undefined;
      return new McpClient(name, kind, session, callTimeoutMs, reopen, dropReason);
    };
    const site = (kind: McpTransportKind): CallSite => ({
      server: name,
      what: `the MCP handshake (${kind})`,
      timeoutMs: connectTimeoutMs,
      signal: options.signal,
    });

    if (isStdioConfig(config)) {
      const transport = new StdioProcessTransport(
        name,
        config,
        options.onStderr && ((chunk) => options.onStderr?.(name, chunk)),
      );
      try {
        return await attempt("stdio", () => transport);
      } catch (error) {
        throw handshakeFailure(error, site("stdio"), transport.describeExit());
      }
    }
    return connectHttp(config, attempt, site);
  }

  /** Every tool the server lists (all pages), up to `maxListedItems`. */
  async listTools(options: McpCallOptions = {}): Promise<McpToolDescription[]> {
    return this.allPages("tools/list", options, async (params, request) => {
      const page = await this.sdk.listTools(params, request);
      return { items: page.tools, nextCursor: page.nextCursor };
    });
  }

  /** Calls a tool by its MCP name. Protocol failures throw; a tool's own failure is `isError`. */
  async callTool(name: string, args: Record<string, unknown>, options: McpCallOptions = {}, toolName = name) {
    return this.request(
      `tool "${name}"`,
      options,
      (request) =>
        this.sdk.callTool({ name, arguments: args }, undefined, request) as Promise<CallToolResult>,
      toolName,
    );
  }

  async listResources(options: McpCallOptions = {}): Promise<Resource[]> {
    if (!this.sdk.getServerCapabilities()?.resources) return [];
    return this.allPages("resources/list", options, async (params, request) => {
      const page = await this.sdk.listResources(params, request);
      return { items: page.resources, nextCursor: page.nextCursor };
    });
  }

  async readResource(uri: string, options: McpCallOptions = {}): Promise<ReadResourceResult["contents"]> {
    const result = await this.request(`resource "${uri}"`, options, (request) =>
      this.sdk.readResource({ uri }, request),
    );
    return result.contents;
  }

  async listPrompts(options: McpCallOptions = {}): Promise<Prompt[]> {
    if (!this.sdk.getServerCapabilities()?.prompts) return [];
    return this.allPages("prompts/list", options, async (params, request) => {
      const page = await this.sdk.listPrompts(params, request);
      return { items: page.prompts, nextCursor: page.nextCursor };
    });
  }

  async getPrompt(
    name: string,
    args: Record<string, string> = {},
    options: McpCallOptions = {},
  ): Promise<GetPromptResult> {
    return this.request(`prompt "${name}"`, options, (request) =>
      this.sdk.getPrompt({ name, arguments: args }, request),
    );
  }

  /** Ends the session; a stdio server's whole process group is gone when this resolves. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    // Streamable HTTP sessions live on the server until a DELETE ends them; the SDK's close()
    // does not send one, so every short-lived client would leave a session behind.
    const inner = this.transport instanceof ProgressOrderedTransport ? this.transport.inner : this.transport;
    if (inner instanceof StreamableHTTPClientTransport && inner.sessionId) {
      await withDeadline(inner.terminateSession(), DEFAULT_MCP_LIMITS.sessionEndTimeoutMs).catch(() => {});
    }
    await this.sdk.close().catch(() => {});
    await this.transport.close().catch(() => {});
  }

  /** `await using client = await McpClient.connect(...)` closes it at the end of the block. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  /** Follows `nextCursor` to the end; a server listing more than `maxListedItems` items is cut off. */
  private async allPages<T>(
    what: string,
    options: McpCallOptions,
    fetchPage: (
      params: { cursor: string } | undefined,
      request: SdkRequestOptions,
    ) => Promise<{ items: T[]; nextCursor?: string }>,
  ): Promise<T[]> {
    const items: T[] = [];
    let cursor: string | undefined;
    do {
      const page = await this.request(what, options, (request) =>
        fetchPage(cursor === undefined ? undefined : { cursor }, request),
      );
      items.push(...page.items);
      if (items.length > DEFAULT_MCP_LIMITS.maxListedItems) {
        throw new McpServerError(
          this.name,
          "LIMIT_EXCEEDED",
          `${what} returned more than ${DEFAULT_MCP_LIMITS.maxListedItems} items`,
          {
            isFatal: false,
          },
        );
      }
      cursor = page.nextCursor;
    } while (cursor);
    return items;
  }

  /** One renewal for all the calls that found the session gone at once. */
  private renewSession(): Promise<void> {
    this.#renewing ??= (async () => {
      const fresh = await this.reopen!();
      const old = this.transport;
      this.#sdk = fresh.sdk;
      this.transport = fresh.transport;
      await old.close().catch(() => {});
    })().finally(() => {
      this.#renewing = undefined;
    });
    return this.#renewing;
  }

  private async request<T>(
    what: string,
    options: McpCallOptions,
    send: (request: SdkRequestOptions) => Promise<T>,
    toolName?: string,
  ): Promise<T> {
    const timeoutMs = options.timeoutMs ?? this.callTimeoutMs;
    const site: CallSite = {
      server: this.name,
      what,
      timeoutMs,
      signal: options.signal,
      exitReason: () => {
        const exit = this.process?.describeExit();
        return exit ? `the process ${exit}` : this.dropReason?.();
      },
    };
    if (this.closed) throw new ClosedError(`MCP client "${this.name}"`);
    if (options.signal?.aborted) throw new AbortError(`${what} on MCP server "${this.name}" was cancelled`);
    // The SDK never removes the abort listener it adds to a request's signal, and an agent run
    // passes one signal to every call: give the SDK a per-call signal and unlink it afterwards.
    const call = new AbortController();
    const forward = () => call.abort(options.signal?.reason);
    options.signal?.addEventListener("abort", forward, { once: true });
    const sendOnce = () =>
      send({
        signal: call.signal,
        timeout: timeoutMs,
        resetTimeoutOnProgress: true,
        maxTotalTimeout: Math.max(timeoutMs, DEFAULT_MCP_LIMITS.callTotalTimeoutMs),
        ...(options.onProgress ? { onprogress: options.onProgress } : {}),
      });
    try {
      try {
        return await sendOnce();
      } catch (error) {
        // The spec: a 404 for our session id means the server ended it (restart, idle expiry);
        // start a new session and retry — the server never saw the request.
        if (!(error instanceof StreamableHTTPError && error.code === 404 && this.reopen)) throw error;
        await this.renewSession();
        return await sendOnce();
      }
    } catch (error) {
      throw callFailure(error, site, toolName);
    } finally {
      options.signal?.removeEventListener("abort", forward);
    }
  }
}

type Attempt = (
  kind: McpTransportKind,
  makeTransport: () => Transport,
  dropReason?: () => string | undefined,
) => Promise<McpClient>;

interface Connected {
  sdk: Client;
  transport: Transport;
}

/**
 * Streamable HTTP first; when the server answers the initialize POST with 400/404/405 (an
 * older server that only speaks HTTP+SSE), try SSE on the same URL, as the spec's
 * backwards-compatibility section says. `type: "http"` or `"sse"` skips the guessing.
 */
async function connectHttp(
  config: McpHttpServerConfig,
  attempt: Attempt,
  site: (kind: McpTransportKind) => CallSite,
): Promise<McpClient> {
  const url = new URL(config.url);
  const requestInit = config.headers ? { headers: config.headers } : undefined;
  // A message over the limit ends the connection (as on stdio): calls waiting on it fail at
  // once, naming the reason, instead of the host buffering whatever the server sends.
  let dropped: string | undefined;
  const dropReason = () => dropped;
  const bounded =
    <T extends Transport>(make: (fetch: FetchLike) => T, baseFetch: FetchLike = fetch): (() => T) =>
    () => {
      const transport: T = make(
        boundedFetch(
          DEFAULT_MCP_LIMITS.maxHttpMessageBytes,
          (error) => {
            dropped = `it ${error.message}`;
            void transport.close().catch(() => {});
          },
          baseFetch,
        ),
      );
      return transport;
    };
  const sse = () =>
    attempt(
      "sse",
      bounded((fetch) => new SSEClientTransport(url, { requestInit, fetch })),
      dropReason,
    );
  if (config.type === "sse") {
    try {
      return await sse();
    } catch (error) {
      throw handshakeFailure(error, site("sse"));
    }
  }
  try {
    return await attempt(
      "streamable-http",
      // The standing GET stream must not keep a host alive that forgot close().
      bounded(
        (fetch) => new StreamableHTTPClientTransport(url, { requestInit, fetch }),
        backgroundStreamFetch(),
      ),
      dropReason,
    );
  } catch (error) {
    rethrowIfFatal(error);
    const legacy = error instanceof StreamableHTTPError && [400, 404, 405].includes(error.code ?? 0);
    if (config.type !== undefined || !legacy) throw handshakeFailure(error, site("streamable-http"));
    try {
      return await sse();
    } catch (sseError) {
      throw handshakeFailure(sseError, {
        ...site("sse"),
        what: `the MCP handshake (streamable HTTP answered ${(error as StreamableHTTPError).code}, then SSE)`,
      });
    }
  }
}

function withDeadline<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), ms);
  });
  return Promise.race([promise, deadline]).finally(() => clearTimeout(timer));
}

function handshakeFailure(error: unknown, site: CallSite, exit?: string) {
  if (site.signal?.aborted) return callFailure(error, site);
  if (exit) {
    return new McpServerError(
      site.server,
      "UNAVAILABLE",
      `exited before completing the MCP handshake: it ${exit}`,
      {
        cause: error,
      },
    );
  }
  if (error instanceof McpError && error.code === ErrorCode.RequestTimeout) {
    return new McpServerError(
      site.server,
      "TIMEOUT",
      `did not answer the MCP handshake within ${site.timeoutMs} ms`,
      {
        cause: error,
        isRetryable: true,
      },
    );
  }
  if (error instanceof McpServerError) return error;
  const reason = error instanceof Error ? describeNetworkError(error) : String(error);
  return new McpServerError(site.server, "UNAVAILABLE", `${site.what} failed: ${reason}`, { cause: error });
}

/** fetch() hides the useful part ("ECONNREFUSED 127.0.0.1:1234") in `cause`. */
function describeNetworkError(error: Error): string {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  return cause?.message ? `${error.message} (${cause.message})` : error.message;
}
