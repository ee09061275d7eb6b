import { type CliEntry, type CliProgram, packageVersion } from "@atrium/kit/cli";
import { hashTokenCommand } from "./hash-token-command.js";
import { ingestCommand } from "./ingest-command.js";
import { mcpCommand } from "./mcp-command.js";
import { shCommand } from "./sh-command.js";

/** `atrium-docs`, with its commands (tests hand in their own). */
export function docsCli(
  commands: readonly CliEntry[] = [ingestCommand(), shCommand(), mcpCommand, hashTokenCommand],
): CliProgram {
  return {
    name: "atrium-docs",
    description:
      "Docs as a filesystem for agents: ingest a folder of pages into Chroma, then read it with a bash\nshell (ls, cat, grep, find, search), here or over MCP.",
    version: () => packageVersion(import.meta.url),
    commands,
  };
}
