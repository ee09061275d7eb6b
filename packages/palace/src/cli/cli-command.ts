import { parseArgs } from "node:util";

/** What a command reads and writes; the tests hand in their own. */
export interface CliIo {
  stdin: NodeJS.ReadableStream;
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown; isTTY?: boolean; columns?: number };
  env: Record<string, string | undefined>;
}

/** One `atrium-palace <name>` command: its usage text and what it runs (resolving to the exit code). */
export interface CliCommand {
  name: string;
  /** The command line's shape and what it does, for the top-level help. */
  synopsis: string;
  summary: string;
  usage: string;
  run(argv: string[], io: CliIo): Promise<number>;
}

/**
 * A mistake in how a command was called (an unknown option, a missing argument, a bad value):
 * printed as the message and a pointer to the command's `--help`.
 */
export class UsageError extends Error {
  override readonly name = "UsageError";
}

type OptionSpec = Record<string, { type: "string" | "boolean"; short?: string; multiple?: boolean }>;

export interface ParsedArgs {
  values: Record<string, string | boolean | string[] | undefined>;
  positionals: string[];
}

/**
 * The command's options and positionals, checked: unknown options, a missing value and a wrong
 * number of positionals are `UsageError`s. `undefined` means `--help` was asked for.
 */
export function parseCommandArgs(
  argv: string[],
  options: OptionSpec,
  positionals: { min: number; max: number; names: string },
): ParsedArgs | undefined {
  let parsed: ParsedArgs;
  try {
    parsed = parseArgs({
      args: argv,
      options: { ...options, help: { type: "boolean", short: "h" } },
      allowPositionals: true,
      strict: true,
    }) as ParsedArgs;
  } catch (error) {
    // node's messages end with advice about "--" that does not apply here.
    throw new UsageError((error as Error).message.replace(/\. To specify a positional argument.*$/s, ""));
  }
  if (parsed.values.help) return undefined;
  const count = parsed.positionals.length;
  if (count < positionals.min) throw new UsageError(`missing ${positionals.names}`);
  if (count > positionals.max) {
    const extra = parsed.positionals.slice(positionals.max).join(" ");
    throw new UsageError(`unexpected argument${count - positionals.max > 1 ? "s" : ""}: ${extra}`);
  }
  return parsed;
}

export function stringOption(values: ParsedArgs["values"], name: string): string | undefined {
  const value = values[name];
  return typeof value === "string" ? value : undefined;
}

/** A whole number option within [min, max], or undefined when not given. */
export function integerOption(
  values: ParsedArgs["values"],
  name: string,
  min: number,
  max: number,
): number | undefined {
  const text = stringOption(values, name);
  if (text === undefined) return undefined;
  const value = Number(text);
  if (text.trim() === "" || !Number.isInteger(value) || value < min || value > max) {
    throw new UsageError(
      `--${name} must be a whole number from ${min} to ${max}, got ${JSON.stringify(text)}`,
    );
  }
  return value;
}

/** One of `choices`, or undefined when not given. */
export function choiceOption<Choice extends string>(
  values: ParsedArgs["values"],
  name: string,
  choices: readonly Choice[],
): Choice | undefined {
  const text = stringOption(values, name);
  if (text === undefined) return undefined;
  if (!(choices as readonly string[]).includes(text)) {
    throw new UsageError(`--${name} must be one of ${choices.join(", ")}, got ${JSON.stringify(text)}`);
  }
  return text as Choice;
}

/** Pretty JSON with a final newline, what every `--json` prints. */
export function jsonLine(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}

/** `--help`: the usage on stdout, exit 0. */
export function printHelp(io: Pick<CliIo, "stdout">, usage: string): number {
  io.stdout.write(usage);
  return 0;
}
