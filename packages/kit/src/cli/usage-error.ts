import { ConfigError } from "@atrium/spec";

/**
 * A mistake in how a command was called: an unknown command or option, a missing argument, a
 * value out of range, options that do not go together. `runCli` prints the message and where the
 * command's `--help` is, on one line, and exits 2.
 */
export class UsageError extends ConfigError {}

/**
 * The exit codes every Atrium CLI shares. A command may return others that it documents: a
 * guest command's own code, 3 for an answer after the last step, 130 for Ctrl-C.
 */
export const EXIT_CODES = { ok: 0, failed: 1, usage: 2 } as const;
