/** A stream a CLI writes to: `process.stdout`, `process.stderr`, or a test's capture. */
export interface CliOutput {
  write(chunk: string | Uint8Array): unknown;
  /** A terminal: progress bars redraw in place, colours may be used. */
  isTTY?: boolean;
  columns?: number;
}

/** What a command reads and writes; `runCli` takes what a caller leaves out from `process`. */
export interface CliIo {
  stdin: NodeJS.ReadableStream & { isTTY?: boolean };
  stdout: CliOutput;
  stderr: CliOutput;
  env: Record<string, string | undefined>;
  cwd: string;
}

interface CliOptionBase {
  /** One letter: `-k`. */
  short?: string;
  /** The help text; its second line and more are indented under the first. */
  help: string;
  /** The help's left column when `--name VALUE` does not say it (`--mode convos|project`). */
  label?: string;
}

/** `--name VALUE`; `multiple` collects every occurrence (`--mcp a --mcp b`). */
export interface CliStringOption extends CliOptionBase {
  type: "string";
  multiple?: boolean;
  /** The value's name in the help: `--port N`. Default `VALUE`. */
  value?: string;
}

/** `--name`, true when given. */
export interface CliBooleanOption extends CliOptionBase {
  type: "boolean";
}

export type CliOption = CliStringOption | CliBooleanOption;
export type CliOptions = Readonly<Record<string, CliOption>>;

/** The parsed values of `O`: a string (strings given several times: an array) or true. */
export type CliValues<O extends CliOptions> = {
  [K in keyof O]?: O[K] extends { type: "boolean" }
    ? boolean
    : O[K] extends { multiple: true }
      ? string[]
      : string;
};

/** What a command's `run` gets: the options it declares, its positionals, what followed `--`. */
export interface CliArgs<O extends CliOptions = CliOptions> {
  values: CliValues<O>;
  positionals: string[];
  /** What followed `--`, untouched (only for a command with `rest: true`). */
  rest: string[];
}

/** One `<program> <name>` command: its help is generated from these fields. */
export interface CliCommand<O extends CliOptions = CliOptions> {
  name: string;
  /** One line, for the list of commands. */
  summary: string;
  /** The command line's shape after `<program> <name>` (`<path> --mode convos|project`); several for several forms. */
  usage: string | readonly string[];
  /** What it does, between the usage and the options. */
  description?: string;
  /** The positional arguments, as rows of the help: `[label, help]`. */
  arguments?: readonly (readonly [string, string])[];
  /** Its options (`-h, --help` is added); an option not declared is a usage error. */
  options?: O;
  /** How many positionals it takes (default none); `names` is said when too few are given. */
  positionals?: { min?: number; max?: number; names?: string };
  /** `--` ends the options and what follows is `args.rest` (a command to run elsewhere). */
  rest?: boolean;
  /** Text after the options: examples, environment variables, exit codes. */
  footer?: string;
  /** The exit code of a usage error, when 2 means something else to the caller (a Claude Code hook). */
  usageExitCode?: number;
  /** Does the work; resolves with the exit code. A thrown `UsageError` exits 2, anything else 1. */
  run(args: CliArgs<O>, io: CliIo): Promise<number> | number;
}

/** A command with commands of its own: `atrium-palace kg <query|add|...>`. */
export interface CliGroup {
  name: string;
  summary: string;
  description?: string;
  commands: readonly CliEntry[];
  footer?: string;
}

export type CliEntry = CliCommand | CliGroup;

/** A whole CLI: `runCli` dispatches to its commands and answers `--help` and `--version`. */
export interface CliProgram {
  /** The binary's name, `atrium-palace`: the first word of every message. */
  name: string;
  /** What it is, at the top of `--help`. */
  description?: string;
  /** `--version`'s answer: a function is called only when asked (`packageVersion(import.meta.url)`). */
  version?: string | (() => string);
  commands: readonly CliEntry[];
  /** Text after the list of commands. */
  footer?: string;
}

/**
 * A command whose `run` sees its own options' types, as an entry of a program's command list.
 * `const` keeps each option's `type` literal, so `args.values.json` is a boolean.
 */
export function defineCommand<const O extends CliOptions>(command: CliCommand<O>): CliCommand {
  return command as unknown as CliCommand;
}

export function isGroup(entry: CliEntry): entry is CliGroup {
  return "commands" in entry;
}
