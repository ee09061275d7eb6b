import { parseArgs } from "node:util";
import { type OpenedStore, openStoreFromArgs, STORE_OPTIONS, storeArgs } from "./store-args.js";

export interface ShellIo {
  stdin: NodeJS.ReadableStream & { isTTY?: boolean };
  stdout: { write(chunk: string): unknown };
  stderr: { write(chunk: string): unknown };
}

type ExtraOptions = Record<string, { type: "string" | "boolean"; short?: string }>;

export type PreparedStoreCommand =
  | { exitCode: number }
  | { values: Record<string, string | boolean | undefined>; groups: string[]; opened: OpenedStore };

/**
 * The start every docs command shares: parse the store options, `--groups` and `--help` (plus
 * the command's own), print usage on a bad argument or a failed `check` (exit 2, before any
 * store is opened or server started), open the store (exit 2 with the store's message, e.g. an
 * unreachable URL, when that fails).
 */
export async function prepareStoreCommand(
  name: string,
  argv: string[],
  usage: string,
  extra: ExtraOptions,
  io: ShellIo,
  /** The command's own checks of its options: a message is a usage error (exit 2). */
  check?: (values: Record<string, string | boolean | undefined>) => string | undefined,
): Promise<PreparedStoreCommand> {
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        ...STORE_OPTIONS,
        groups: { type: "string" },
        help: { type: "boolean", short: "h" },
        ...extra,
      },
    }));
  } catch (error) {
    io.stderr.write(`atrium-docs ${name}: ${(error as Error).message}\n\n${usage}`);
    return { exitCode: 2 };
  }
  if (values.help) {
    io.stdout.write(usage);
    return { exitCode: 0 };
  }
  const problem = check?.(values);
  if (problem !== undefined) {
    io.stderr.write(`atrium-docs ${name}: ${problem}\n`);
    return { exitCode: 2 };
  }
  const groups = typeof values.groups === "string" ? parseGroups(values.groups) : [];
  try {
    return { values, groups, opened: await openStoreFromArgs(storeArgs(values)) };
  } catch (error) {
    io.stderr.write(`atrium-docs ${name}: ${(error as Error).message}\n`);
    return { exitCode: 2 };
  }
}

/** `--groups ' staff , ops,'` → `["staff", "ops"]`: names trimmed, empty entries ignored. */
export function parseGroups(list: string): string[] {
  return [...new Set(list.split(",").map((group) => group.trim()))].filter(Boolean);
}
