import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type CliIo, defineCommand, integerOption, UsageError } from "@atrium/kit/cli";
import { AbortError } from "@atrium/spec";
import { Machine } from "../../machine/machine.js";
import { MACHINE_SOURCE_OPTIONS, machineConfig } from "../machine-source.js";
import { brokenStreamMessage, OutputSink } from "../output-sink.js";
import { progressTo } from "../progress.js";

/** `-t, --timeout MS`, for the commands that run a guest command. */
export const TIMEOUT_OPTION = {
  timeout: {
    type: "string",
    short: "t",
    value: "MS",
    help: "kill COMMAND after MS milliseconds (exit code 124)",
  },
} as const;

/** `--timeout`'s milliseconds, or undefined when not given. */
export function timeoutOption(text: string | undefined): number | undefined {
  return integerOption(text, "--timeout", { min: 1 });
}

/** A lone argument with a space is a shell line; anything else is an argv. */
export function guestCommand(rest: string[]): string | string[] {
  if (rest.length === 0) throw new UsageError("missing the command to run after --");
  return rest.length === 1 && /\s/.test(rest[0] as string) ? (rest[0] as string) : rest;
}

/**
 * Runs a command with its output streamed to ours; resolves to its exit code. Our readers set
 * the pace (a full stdout holds the guest back), and a reader that goes away kills the command.
 */
export async function runStreamed(
  machine: Machine,
  command: string | string[],
  io: CliIo,
  timeoutMs: number | undefined,
): Promise<number> {
  const abort = new AbortController();
  let broken: string | undefined;
  const onBroken = (name: string) => (error: Error) => {
    broken ??= brokenStreamMessage(name, error);
    abort.abort();
  };
  const stdout = new OutputSink(io.stdout, onBroken("stdout"));
  const stderr = new OutputSink(io.stderr, onBroken("stderr"));
  try {
    const result = await machine.exec(command, {
      ...(timeoutMs ? { timeoutMs } : {}),
      signal: abort.signal,
      keepOutput: false,
      onStdout: (chunk) => stdout.write(chunk),
      onStderr: (chunk) => stderr.write(chunk),
    });
    if (result.timedOut) io.stderr.write(`atrium-vm: the command ran past ${timeoutMs} ms and was killed\n`);
    return result.exitCode;
  } catch (error) {
    if (broken && error instanceof AbortError) throw new Error(`${broken}; the command was killed`);
    throw error;
  } finally {
    stdout.close();
    stderr.close();
  }
}

export const runCommand = defineCommand({
  name: "run",
  summary: "boot a throwaway machine, run one command, stop",
  usage: "[options] -- COMMAND [ARG...]",
  description:
    "Boots a throwaway machine, runs COMMAND in it (through /bin/sh -c when it is one word with\nspaces, else as an argv), prints its output, stops the machine and exits with COMMAND's code.\nNothing it writes is kept.",
  options: { ...MACHINE_SOURCE_OPTIONS, ...TIMEOUT_OPTION },
  rest: true,
  async run(args, io) {
    const command = guestCommand(args.rest);
    const timeoutMs = timeoutOption(args.values.timeout);
    const config = await machineConfig(args.values, io);
    const machine = await Machine.create(config, { onProgress: progressTo(io) });
    try {
      return await runStreamed(machine, command, io, timeoutMs);
    } finally {
      await machine.stop();
    }
  },
});

/** A temporary directory removed after `use`, for unpacked packs. */
export async function withTempDir<T>(use: (dir: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(join(tmpdir(), "atrium-vm-pack-"));
  try {
    return await use(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
