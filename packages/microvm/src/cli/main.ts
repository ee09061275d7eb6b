#!/usr/bin/env node
import { errorMessage } from "@atrium/spec";
import type { CliCommand, CliIo } from "./cli-command.js";
import { UsageError } from "./cli-command.js";
import { cpCommand } from "./commands/cp-command.js";
import { createCommand } from "./commands/create-command.js";
import { doctorCommand } from "./commands/doctor-command.js";
import { execCommand } from "./commands/exec-command.js";
import { lsCommand } from "./commands/ls-command.js";
import { packCommand } from "./commands/pack-command.js";
import { rmCommand } from "./commands/rm-command.js";
import { runCommand } from "./commands/run-command.js";
import { startCommand } from "./commands/start-command.js";
import { stopCommand } from "./commands/stop-command.js";

const COMMANDS: CliCommand[] = [
  runCommand,
  createCommand,
  startCommand,
  execCommand,
  cpCommand,
  stopCommand,
  lsCommand,
  rmCommand,
  packCommand,
  doctorCommand,
];

export const MAIN_USAGE = `Usage: atrium-vm COMMAND [options]

QEMU micro-VMs from OCI images: network off unless the config turns it on.

Commands:
${COMMANDS.map((command) => `  ${command.name.padEnd(8)}${command.summary}`).join("\n")}

\`atrium-vm COMMAND --help\` says more. Progress goes to stderr; ATRIUM_VM_QUIET=1 silences it.
`;

/** Runs one command line; resolves to the exit code. Errors print one line on stderr and give 1. */
export async function runCli(argv: string[], io: CliIo): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === "--help" || name === "-h" || name === "help") {
    (name === undefined ? io.stderr : io.stdout).write(MAIN_USAGE);
    return name === undefined ? 1 : 0;
  }
  const command = COMMANDS.find((candidate) => candidate.name === name);
  if (!command) {
    io.stderr.write(`atrium-vm: unknown command ${JSON.stringify(name)}; see atrium-vm --help\n`);
    return 1;
  }
  try {
    return await command.run(rest, io);
  } catch (error) {
    if (error instanceof UsageError) {
      io.stderr.write(`atrium-vm ${name}: ${error.message}; see atrium-vm ${name} --help\n`);
    } else {
      io.stderr.write(`atrium-vm ${name}: ${errorMessage(error)}\n`);
    }
    return 1;
  }
}

runCli(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  env: process.env,
  cwd: process.cwd(),
}).then((code) => {
  process.exitCode = code;
});
