import { type LimitKinds, resolveLimitValues } from "@atrium/kit";

/**
 * Every limit of @atrium/mcp in one place. MCP servers are third-party processes and URLs:
 * anything they send (tool lists, results, stderr) is untrusted and bounded here. Options that
 * override a limit (`connectTimeoutMs`, `callTimeoutMs`, `sessionIdleMs`) go through
 * `resolveMcpLimits`, so a bad value is refused naming the field.
 */
export interface McpLimits {
  /** Handshake (spawn + initialize + tools/list) of one server. */
  connectTimeoutMs: number;
  /** One tools/call, resources/read or prompts/get without progress; progress resets it. */
  callTimeoutMs: number;
  /** A call that keeps reporting progress still ends here. */
  callTotalTimeoutMs: number;
  /** close() of an HTTP client waits this long for the server to end the session. */
  sessionEndTimeoutMs: number;
  /** After stdin closes, how long a stdio server gets to exit before SIGTERM. */
  stdioExitGraceMs: number;
  /** After SIGTERM, how long a stdio server gets to exit before SIGKILL. */
  stdioTermGraceMs: number;
  /** The tail of a stdio server's stderr kept to explain why it failed. */
  maxStderrTailChars: number;
  /** Text of one tool result handed to the model; longer text is cut with a note. */
  maxResultTextChars: number;
  /**
   * One error message sent (a served tool's failure) or received (a JSON-RPC error); longer
   * text is cut with a note saying how much.
   */
  maxErrorChars: number;
  /** Images of one tool result (base64 characters in total); further images are dropped with a note. */
  maxResultImageChars: number;
  /** A tool description from a server goes into every prompt; longer ones are cut with a note. */
  maxToolDescriptionChars: number;
  /** Tools (or resources, or prompts) one server may list; more is treated as a broken server. */
  maxListedItems: number;
  /**
   * One message from an HTTP server (a JSON body, or one SSE event); past it the connection is
   * dropped. Stdio servers have the SDK's own 10 MB line limit. Room for a result's images.
   */
  maxHttpMessageBytes: number;
  /** Size of an mcpServers config file. */
  maxConfigFileBytes: number;
  /** Served over HTTP: request body size. */
  maxHttpBodyBytes: number;
  /** Served over stdio: one request line; a longer one is answered with a JSON-RPC error and dropped. */
  maxStdioLineBytes: number;
  /** Served over HTTP: concurrent sessions. */
  maxHttpSessions: number;
  /**
   * Served over HTTP with authentication: concurrent sessions one identity may hold, so one token
   * cannot take every slot and lock the other clients out.
   */
  maxHttpSessionsPerIdentity: number;
  /**
   * A served HTTP session with no request open for this long is closed: its client vanished, or
   * left without ending it. Minutes, so vanished clients free their slots soon.
   */
  sessionIdleMs: number;
  /** Served over HTTP: at close (SIGTERM), how long calls in flight get to finish before they are answered with an error. */
  shutdownGraceMs: number;
  /** Size of a tokens file (bearer tokens of HTTP serving). */
  maxTokensFileBytes: number;
}

export const DEFAULT_MCP_LIMITS: Readonly<McpLimits> = Object.freeze({
  connectTimeoutMs: 30_000,
  callTimeoutMs: 60_000,
  callTotalTimeoutMs: 10 * 60_000,
  sessionEndTimeoutMs: 2_000,
  stdioExitGraceMs: 500,
  stdioTermGraceMs: 1_000,
  maxStderrTailChars: 2_000,
  maxResultTextChars: 200_000,
  maxErrorChars: 20_000,
  maxResultImageChars: 10 * 1024 * 1024,
  maxToolDescriptionChars: 4_000,
  maxListedItems: 1_000,
  maxHttpMessageBytes: 16 * 1024 * 1024,
  maxConfigFileBytes: 1024 * 1024,
  maxHttpBodyBytes: 4 * 1024 * 1024,
  maxStdioLineBytes: 10 * 1024 * 1024,
  maxHttpSessions: 100,
  // As many as the server holds: a server whose clients share one token (a docs deployment)
  // keeps its old behaviour; one whose identities compete (the palace) sets its own.
  maxHttpSessionsPerIdentity: 100,
  sessionIdleMs: 5 * 60_000,
  shutdownGraceMs: 10_000,
  maxTokensFileBytes: 1024 * 1024,
});

const MCP_LIMIT_KINDS: LimitKinds<McpLimits> = {
  connectTimeoutMs: "duration",
  callTimeoutMs: "duration",
  callTotalTimeoutMs: "duration",
  sessionEndTimeoutMs: "duration",
  stdioExitGraceMs: "duration",
  stdioTermGraceMs: "duration",
  maxStderrTailChars: "count",
  maxResultTextChars: "count",
  maxErrorChars: "count",
  maxResultImageChars: "count",
  maxToolDescriptionChars: "count",
  maxListedItems: "count",
  maxHttpMessageBytes: "count",
  maxConfigFileBytes: "count",
  maxHttpBodyBytes: "count",
  maxStdioLineBytes: "count",
  maxHttpSessions: "count",
  maxHttpSessionsPerIdentity: "count",
  sessionIdleMs: "duration",
  shutdownGraceMs: "duration",
  maxTokensFileBytes: "count",
};

/** The defaults with `partial`'s fields (undefined ones ignored), each checked; frozen. */
export function resolveMcpLimits(partial: Partial<McpLimits> = {}): Readonly<McpLimits> {
  return resolveLimitValues("@atrium/mcp", DEFAULT_MCP_LIMITS, MCP_LIMIT_KINDS, partial);
}
