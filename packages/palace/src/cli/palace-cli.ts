import { type CliProgram, packageVersion } from "@atrium/kit/cli";
import { benchCommand } from "./bench-command.js";
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

export const PALACE_CLI: CliProgram = {
  name: "atrium-palace",
  description:
    "A memory palace: verbatim drawers in wings (people, projects) and rooms (topics), a temporal\nknowledge graph, a token-budgeted wake-up, hybrid search and an MCP server.",
  version: () => packageVersion(import.meta.url),
  commands: [
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
  ],
  footer: "Every command takes --palace DIR; without it the palace is $ATRIUM_PALACE, else ~/.atrium/palace.",
};
