import type { Command } from "just-bash";
import { withBytesOutput } from "../byte-strings/just-bash-bytes.js";
import { createCutCommand } from "../commands/cut/cut-command.js";
import { createDuCommand } from "../commands/du/du-command.js";
import { createFindCommand } from "../commands/find/find-command.js";
import { createHeadTailCommands } from "../commands/head-tail/head-tail-command.js";
import { createLsCommand } from "../commands/ls/ls-command.js";
import { createNlCommand } from "../commands/nl/nl-command.js";
import { createSedCommand } from "../commands/sed/sed-command.js";
import { createSortCommand } from "../commands/sort/sort-command.js";
import { createStatCommand } from "../commands/stat/stat-command.js";
import { createUniqCommand } from "../commands/uniq/uniq-command.js";
import { createWcCommand } from "../commands/wc/wc-command.js";
import { withWrittenOrder } from "../commands/written-order.js";
import { createDirectoryGlobCommand } from "./directory-glob.js";
import { createDirectoryMessageCommands } from "./directory-messages.js";

/** The commands that record the order of their writes, which `mergedStderrPlugin` marks. */
export const WRITTEN_ORDER_COMMANDS: ReadonlySet<string> = new Set([
  "cat",
  "head",
  "tail",
  "wc",
  "ls",
  "du",
  "stat",
  "cut",
  "sed",
  "nl",
]);

/**
 * The coreutils ChromaFs implements itself because just-bash's print something other than GNU's
 * (see the README's "Commands" section): registered over just-bash's own, which each one
 * still calls (`ctx.origCommand`) for options it does not model. grep, egrep, fgrep and rg
 * come from `grep/` (they need the store); every other command is just-bash's. Their output goes
 * to just-bash as bytes (`withBytesOutput`), in the order it was written under `2>&1`
 * (`withWrittenOrder`, for the commands in `WRITTEN_ORDER_COMMANDS`).
 */
export function createGnuCommands(): Command[] {
  const commands = [
    createWcCommand(),
    createUniqCommand(),
    createSortCommand(),
    ...createHeadTailCommands(),
    createLsCommand(),
    createDuCommand(),
    createStatCommand(),
    createCutCommand(),
    createFindCommand(),
    createNlCommand(),
    createSedCommand(),
    ...createDirectoryMessageCommands(),
    createDirectoryGlobCommand(),
  ];
  return commands.map((command) => withBytesOutput(withWrittenOrder(command)));
}
