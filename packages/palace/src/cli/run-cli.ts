import { errorMessage } from "@atrium/spec";
import { benchCommand } from "./bench-command.js";
import { type CliCommand, type CliIo, UsageError } from "./cli-command.js";
import { exportCommand } from "./export-command.js";
import { hookCommand } from "./hook-command.js";
import { importCommand } from "./import-command.js";
import { initCommand } from "./init-command.js";
import { kgCommand } from "./kg-command.js";
import { mcpCommand } from "./mcp-command.js";
import { mineCommand } from "./mine-command.js";
import { repairCommand } from "./repair-command.js";
import { searchCommand } from "./search-command.js";
import { statusCommand } from "./status-command.js";
import { wakeUpCommand } from "./wake-up-command.js";

export const COMMANDS: readonly CliCommand[] = [
  initCommand,
  mineCommand,
  searchCommand,
  wakeUpCommand,
  statusCommand,
  kgCommand,
  exportCommand,
  importCommand,
  repairCommand,
  mcpCommand,
  hookCommand,
  benchCommand,
];

const USAGE = `Usage: atrium-palace <command> [options]

A memory palace: verbatim drawers in wings (people, projects) and rooms (topics), a temporal
knowledge graph, a token-budgeted wake-up, hybrid search and an MCP server.

Commands:
${commandList()}

Every command takes --palace DIR; without it the palace is $ATRIUM_PALACE, else ~/.atrium/palace.
Run \`atrium-palace <command> --help\` for a command's options.
`;

function commandList(): string {
  const width = Math.max(...COMMANDS.map((command) => command.synopsis.length));
  return COMMANDS.map((command) => `  ${command.synopsis.padEnd(width)}  ${command.summary}`).join("\n");
}

/** Runs one command line; errors are one line on stderr (no stack) and exit code 1. */
export async function runCli(argv: string[], io: CliIo): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === "-h" || name === "--help") {
    (name === undefined ? io.stderr : io.stdout).write(USAGE);
    return name === undefined ? 1 : 0;
  }
  const command = COMMANDS.find((entry) => entry.name === name);
  if (!command) {
    io.stderr.write(`atrium-palace: unknown command '${name}'; run atrium-palace --help for the list\n`);
    return 1;
  }
  try {
    return await command.run(rest, io);
  } catch (error) {
    const hint = error instanceof UsageError ? ` (see atrium-palace ${name} --help)` : "";
    io.stderr.write(`atrium-palace ${name}: ${errorMessage(error)}${hint}\n`);
    return 1;
  }
}
