import { parseArgs } from "node:util";

/** Where a command writes; the real streams in main.ts. */
export interface CliIo {
  stdout: { write(data: string | Uint8Array): unknown };
  stderr: { write(data: string | Uint8Array): unknown };
  env: NodeJS.ProcessEnv;
  cwd: string;
}

/** One `atrium-vm <name>` command: its usage text and what it runs (resolving to the exit code). */
export interface CliCommand {
  name: string;
  summary: string;
  usage: string;
  run(argv: string[], io: CliIo): Promise<number>;
}

/** A mistake in how a command was called: printed with a pointer to the command's `--help`. */
export class UsageError extends Error {
  override readonly name = "UsageError";
}

type OptionSpec = Record<string, { type: "string" | "boolean"; short?: string }>;

export interface ParsedArgs {
  values: Record<string, string | boolean | undefined>;
  positionals: string[];
  /** What followed `--` (a guest command), untouched. */
  rest: string[];
}

/**
 * Options and positionals before `--`, checked (unknown options, missing values, the count of
 * positionals), and everything after `--` as given. `undefined` when `--help` was asked for.
 */
export function parseCommandArgs(
  argv: string[],
  options: OptionSpec,
  positionals: { min: number; max: number; what: string },
): ParsedArgs | undefined {
  const dash = argv.indexOf("--");
  const head = dash >= 0 ? argv.slice(0, dash) : argv;
  const rest = dash >= 0 ? argv.slice(dash + 1) : [];
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({
      args: head,
      options: { ...options, help: { type: "boolean", short: "h" } },
      allowPositionals: true,
      strict: true,
    });
  } catch (error) {
    throw new UsageError((error as Error).message.replace(/\. To specify a positional.*$/s, ""));
  }
  if (parsed.values.help) return undefined;
  const count = parsed.positionals.length;
  if (count < positionals.min || count > positionals.max) {
    throw new UsageError(
      count < positionals.min
        ? `missing ${positionals.what}`
        : `unexpected argument ${JSON.stringify(parsed.positionals[positionals.max])}`,
    );
  }
  return { values: parsed.values as ParsedArgs["values"], positionals: parsed.positionals, rest };
}

/** A whole, positive number of milliseconds (or undefined when not given). */
export function parseMs(value: string | boolean | undefined, option: string): number | undefined {
  if (value === undefined) return undefined;
  const ms = Number(value);
  if (typeof value !== "string" || !/^\d+$/.test(value) || ms <= 0)
    throw new UsageError(`--${option}: a whole number of milliseconds, not ${JSON.stringify(value)}`);
  return ms;
}
