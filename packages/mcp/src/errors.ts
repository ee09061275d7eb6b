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

/** Every MCP server asked for failed to connect: there are no tools to give. */
export class McpConnectError extends AtriumError {
  readonly failures: readonly { server: string; error: AtriumError }[];
  constructor(failures: readonly { server: string; error: AtriumError }[]) {
    const lines = failures.map((failure) => `  ${failure.error.message}`);
    super(
      "UNAVAILABLE",
      `${failures.length === 1 ? "the MCP server" : `all ${failures.length} MCP servers`} failed to connect:\n${lines.join("\n")}`,
    );
    this.failures = failures;
  }
}
