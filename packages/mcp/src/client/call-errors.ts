import { capText } from "@atrium/kit";
import { AbortError, type AtriumError, errorMessage, isAtriumError, ToolError } from "@atrium/spec";
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import { McpServerError } from "../errors.js";
import { DEFAULT_MCP_LIMITS } from "../limits.js";

export interface CallSite {
  server: string;
  /** What was asked, e.g. `tool "echo"` or `resource "file:///a"`. */
  what: string;
  timeoutMs: number;
  signal?: AbortSignal;
  /** Why the server is gone: "the process exited with code 3; …", or why we dropped it. */
  exitReason?: () => string | undefined;
}

/**
 * Turns what the SDK throws into Atrium errors: an abort by the caller stays fatal (the run was
 * cancelled); timeouts, dropped connections and JSON-RPC errors become `ToolError`s the model
 * sees as observations, each naming the server.
 */
export function callFailure(error: unknown, site: CallSite, toolName?: string): AtriumError {
  if (site.signal?.aborted)
    return new AbortError(`${site.what} on MCP server "${site.server}" was cancelled`, { cause: error });
  if (isAtriumError(error)) return error;
  let message: string;
  let isRetryable = false;
  if (error instanceof McpError && error.code === ErrorCode.RequestTimeout) {
    message = `did not answer ${site.what} within ${site.timeoutMs} ms`;
    isRetryable = true;
  } else if (error instanceof McpError && error.code === ErrorCode.ConnectionClosed) {
    const exit = site.exitReason?.();
    message = `closed the connection during ${site.what}${exit ? ` (${exit})` : ""}`;
  } else if (site.exitReason?.()) {
    // Later calls to a server that died: the SDK only says "Not connected".
    message = `is no longer running, so ${site.what} cannot run (${site.exitReason()})`;
  } else {
    // A JSON-RPC error's text comes from the server: bounded before it reaches a model.
    message = `${site.what} failed: ${capText(errorMessage(error), DEFAULT_MCP_LIMITS.maxErrorChars)}`;
  }
  const text = `MCP server "${site.server}" ${message}`;
  return toolName
    ? new ToolError(toolName, text, { cause: error, isRetryable })
    : new McpServerError(site.server, "UNAVAILABLE", message, { cause: error, isRetryable });
}
