#!/usr/bin/env node
import { errorMessage } from "@atrium/spec";
import { runHashTokenCommand } from "./hash-token-command.js";
import { runIngestCommand } from "./ingest-command.js";
import { runMcpCommand } from "./mcp-command.js";
import { runShCommand } from "./sh-command.js";

const USAGE = `Usage: atrium-docs <command> [options]

Commands:
  ingest <dir> --collection <name> ...   put a docs folder into a Chroma collection
  sh --collection <name> ... [-c CMD]    a bash shell over the docs (ls, cat, grep, find, search)
  mcp --collection <name> ... [--http]   serve that shell and search as an MCP server
  hash-token                             the SHA-256 of a bearer token (from stdin) for mcp --tokens-file

Run \`atrium-docs <command> --help\` for a command's options.
`;

const io = { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr };

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  switch (command) {
    case "ingest":
      return runIngestCommand(rest);
    case "sh":
      return runShCommand(rest, io);
    case "mcp":
      return runMcpCommand(rest, io);
    case "hash-token":
      return runHashTokenCommand(rest, io);
    case "-h":
    case "--help":
      process.stdout.write(USAGE);
      return 0;
    case undefined:
      process.stderr.write(`atrium-docs: missing command\n\n${USAGE}`);
      return 2;
    default:
      process.stderr.write(`atrium-docs: unknown command '${command}'\n\n${USAGE}`);
      return 2;
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`atrium-docs: ${errorMessage(error)}\n`);
    process.exitCode = 1;
  },
);
