import { AtriumError, ConfigError } from "@atrium/spec";

/**
 * A sandbox (a worker thread, an OS-sandboxed process, an interpreter in a guest) died, was
 * terminated, or broke while a request waited for it. An executor reports the run as "crashed"
 * and starts another sandbox; outside a run, the call that waited fails with it.
 */
export class SandboxExitError extends AtriumError {
  constructor(message: string, options: { cause?: unknown } = {}) {
    super("EXECUTION", message, options);
  }
}

/**
 * What a sandbox sent broke its protocol: a message of the wrong shape or size, or one it may
 * not send at that moment (a forged tool call). The sandbox runs guest code, so this is the
 * sign that it is no longer the harness: it is ended, never obeyed.
 */
export class SandboxProtocolError extends AtriumError {
  constructor(message: string) {
    super("EXECUTION", message);
  }
}

/**
 * A mistake in how a command was called: an unknown command or option, a missing argument, a
 * value out of range, options that do not go together. `runCli` prints the message and where the
 * command's `--help` is, on one line, and exits 2.
 */
export class UsageError extends ConfigError {}
