import { AtriumError, type AtriumErrorOptions, type ErrorCode } from "@atrium/spec";

/**
 * A failure of one MCP server (spawn, handshake, listing, transport). `server` is the name it
 * has in the config, so a user with ten servers knows which one to fix.
 */
export class McpServerError extends AtriumError {
  readonly server: string;
  constructor(server: string, code: ErrorCode, message: string, options: AtriumErrorOptions = {}) {
    super(code, `MCP server "${server}": ${message}`, options);
    this.server = server;
  }
}
