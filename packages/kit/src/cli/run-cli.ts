import { parseArgs } from "node:util";
import { errorMessage } from "@atrium/spec";
import { commandHelp, commandNames, groupHelp } from "./cli-help.js";
import {
  type CliArgs,
  type CliCommand,
  type CliEntry,
  type CliIo,
  type CliProgram,
  isGroup,
} from "./cli-types.js";
import { EXIT_CODES, UsageError } from "./usage-error.js";

/**
 * Runs one command line of `program`; resolves with the exit code, never rejects. The
 * conventions every Atrium CLI keeps:
 *
 * - `--help` (`-h`) prints the help, generated from the command table, on stdout: exit 0. At the
 *   top it lists the commands; after a command, that command's usage and options.
 * - `--version` (`-v`) prints the package's version: exit 0.
 * - A usage error (an unknown command or option, a missing argument, a `UsageError` thrown by a
 *   command) is one line on stderr, `<program> <command>: <what is wrong> (see <program>
 *   <command> --help)`: exit 2.
 * - Any other error is one line on stderr, `<program> <command>: <message>`: exit 1; its stack
 *   follows only with `ATRIUM_DEBUG=1`.
 * - Otherwise the exit code is what the command's `run` resolved with.
 */
export async function runCli(
  program: CliProgram,
  argv: readonly string[],
  io: Partial<CliIo> = {},
): Promise<number> {
  const full: CliIo = {
    // Taken only by a command that reads it: opening process.stdin is not free (a TTY's handle).
    get stdin() {
      return io.stdin ?? process.stdin;
    },
    stdout: io.stdout ?? process.stdout,
    stderr: io.stderr ?? process.stderr,
    env: io.env ?? process.env,
    cwd: io.cwd ?? process.cwd(),
  };
  const { version } = program;
  if (version !== undefined && (argv[0] === "--version" || argv[0] === "-v")) {
    try {
      full.stdout.write(`${typeof version === "string" ? version : version()}\n`);
      return EXIT_CODES.ok;
    } catch (error) {
      return failed([program.name], error, full);
    }
  }
  return dispatch([program.name], program, argv, full, version !== undefined);
}

/** `runCli` on `process.argv`, setting `process.exitCode`: the body of a CLI's bin file. */
export function cliMain(program: CliProgram): void {
  void runCli(program, process.argv.slice(2)).then((code) => {
    process.exitCode = code;
  });
}

async function dispatch(
  path: readonly string[],
  group: { commands: readonly CliEntry[]; description?: string; footer?: string },
  argv: readonly string[],
  io: CliIo,
  top: boolean,
): Promise<number> {
  const [name, ...rest] = argv;
  if (
    name === "--help" ||
    name === "-h" ||
    (name === "help" && !group.commands.some((c) => c.name === name))
  ) {
    io.stdout.write(groupHelp(path, group, top));
    return EXIT_CODES.ok;
  }
  const entry = group.commands.find((candidate) => candidate.name === name);
  if (entry === undefined) {
    const choices = commandNames(group.commands);
    const problem =
      name === undefined
        ? `missing command: use ${choices}`
        : name.startsWith("-")
          ? `Unknown option '${name}'`
          : `unknown command ${JSON.stringify(name)}: use ${choices}`;
    return usageFailed(path, problem, io, EXIT_CODES.usage);
  }
  const at = [...path, entry.name];
  return isGroup(entry) ? dispatch(at, entry, rest, io, false) : runCommand(at, entry, rest, io);
}

async function runCommand(
  path: readonly string[],
  command: CliCommand,
  argv: readonly string[],
  io: CliIo,
): Promise<number> {
  try {
    const args = parseCommandLine(command, argv);
    if (args === undefined) {
      io.stdout.write(commandHelp(path, command));
      return EXIT_CODES.ok;
    }
    return await command.run(args, io);
  } catch (error) {
    if (error instanceof UsageError)
      return usageFailed(path, error.message, io, command.usageExitCode ?? EXIT_CODES.usage);
    return failed(path, error, io);
  }
}

/** The command's options and positionals, checked; `undefined` when `--help` was asked for. */
function parseCommandLine(command: CliCommand, argv: readonly string[]): CliArgs | undefined {
  const dash = command.rest ? argv.indexOf("--") : -1;
  const head = dash >= 0 ? argv.slice(0, dash) : argv;
  const rest = dash >= 0 ? argv.slice(dash + 1) : [];
  const options = Object.fromEntries(
    Object.entries(command.options ?? {}).map(([name, option]) => [
      name,
      {
        type: option.type,
        ...(option.short === undefined ? {} : { short: option.short }),
        ...(option.type === "string" && option.multiple ? { multiple: true } : {}),
      },
    ]),
  );
  let parsed: { values: Record<string, unknown>; positionals: string[] };
  try {
    parsed = parseArgs({
      args: [...head],
      options: { ...options, help: { type: "boolean", short: "h" } },
      allowPositionals: true,
      strict: true,
    });
  } catch (error) {
    // Node's messages end with advice about "--" that does not apply here.
    throw new UsageError(errorMessage(error).replace(/\. To specify a positional argument.*$/s, ""));
  }
  const { help, ...values } = parsed.values;
  if (help === true) return undefined;
  const { min = 0, max = 0, names = "an argument" } = command.positionals ?? {};
  const count = parsed.positionals.length;
  if (count < min) throw new UsageError(`missing ${names}`);
  if (count > max) throw new UsageError(`unexpected argument ${JSON.stringify(parsed.positionals[max])}`);
  return { values: values as CliArgs["values"], positionals: parsed.positionals, rest };
}

function usageFailed(path: readonly string[], problem: string, io: CliIo, exitCode: number): number {
  const where = path.join(" ");
  io.stderr.write(`${where}: ${problem} (see ${where} --help)\n`);
  return exitCode;
}

function failed(path: readonly string[], error: unknown, io: CliIo): number {
  io.stderr.write(`${path.join(" ")}: ${errorMessage(error)}\n`);
  if (io.env.ATRIUM_DEBUG === "1" && error instanceof Error && error.stack)
    io.stderr.write(`${error.stack}\n`);
  return EXIT_CODES.failed;
}
