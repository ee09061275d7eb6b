/**
 * Every limit of @atrium/mcp in one place. MCP servers are third-party processes and URLs:
 * anything they send (tool lists, results, stderr) is untrusted and bounded here.
 */

/** Handshake (spawn + initialize + tools/list) of one server. */
export const CONNECT_TIMEOUT_MS = 30_000;
/** One tools/call, resources/read or prompts/get without progress; progress resets it. */
export const CALL_TIMEOUT_MS = 60_000;
/** A call that keeps reporting progress still ends here. */
export const CALL_MAX_TOTAL_TIMEOUT_MS = 10 * 60_000;

/** close() of an HTTP client waits this long for the server to end the session. */
export const SESSION_END_TIMEOUT_MS = 2_000;
/** After stdin closes, how long a stdio server gets to exit before SIGTERM, then before SIGKILL. */
export const STDIO_EXIT_GRACE_MS = 500;
export const STDIO_TERM_GRACE_MS = 1_000;
/** The tail of a stdio server's stderr kept to explain why it failed. */
export const STDERR_TAIL_CHARS = 2_000;

/** Text of one tool result handed to the model; longer text is cut with a note. */
export const MAX_RESULT_TEXT_CHARS = 200_000;
/** Images of one tool result (base64 characters in total); further images are dropped with a note. */
export const MAX_RESULT_IMAGE_CHARS = 10 * 1024 * 1024;
/** A tool description from a server goes into every prompt; longer ones are cut with a note. */
export const MAX_TOOL_DESCRIPTION_CHARS = 4_000;
/** Tools (or resources, or prompts) one server may list; more is treated as a broken server. */
export const MAX_LISTED_ITEMS = 1_000;
/**
 * One message from an HTTP server (a JSON body, or one SSE event); past it the connection is
 * dropped. Stdio servers have the SDK's own 10 MB line limit. Room for a result's images.
 */
export const MAX_HTTP_MESSAGE_BYTES = 16 * 1024 * 1024;
/** Size of an mcpServers config file. */
export const MAX_CONFIG_FILE_BYTES = 1024 * 1024;

/** Served over HTTP: request body size and concurrent sessions. */
export const MAX_HTTP_BODY_BYTES = 4 * 1024 * 1024;
export const MAX_HTTP_SESSIONS = 100;
/** A served HTTP session with no request for this long is closed (its client vanished). */
export const HTTP_SESSION_IDLE_MS = 30 * 60_000;
