import { packageText, SandboxExitError, type SandboxHost } from "@atrium/kit";
import { ConfigError } from "@atrium/spec";
import { GuestFileError } from "../errors.js";
import { DEFAULT_MICRO_VM_EXECUTOR_LIMITS } from "../limits.js";
import type { ExecControl, Machine } from "../machine/machine.js";

/** A JSON line from the harness (see guest-harness.py). */
export type HarnessMessage =
  | { op: "ready"; version: string }
  | { op: "ok" }
  | ToolMessage
  | {
      op: "done";
      final: boolean;
      output: unknown;
      value?: unknown;
      repr?: boolean;
      /** The printed output kept (first and last halves of `maxOutputChars`), and how much was dropped between them. */
      logs: string;
      cut?: number;
      error?: { kind: string; name: string; message: string; line?: number | null };
    };

/** A tool call from guest code. */
export type ToolMessage = {
  op: "tool";
  id: number;
  name: string;
  args: unknown[];
  kwargs: Record<string, unknown>;
};

/**
 * The guest half (`guest-harness.py`), read from the package: beside this file in the sources,
 * in `dist/harness/` in a build (tsup.config.ts copies it there).
 */
export function guestHarness(): string {
  return packageText({
    from: import.meta.url,
    source: "./guest-harness.py",
    built: ["./harness/guest-harness.py", "../harness/guest-harness.py"],
    owner: "MicroVmExecutor",
  });
}

const SIGINT = 2;
const SIGKILL = 9;
const ENOENT = 2;

/**
 * One Python harness process in a guest, spoken to over the agent channel: its stdin and stdout
 * are frames of one long-lived exec, so it works with the guest's network off. The micro-VM
 * executor's kit `SandboxHost`. Requests go one at a time, in order; `tool` lines that arrive
 * while a request is pending go to `onToolCall`, whose answer is written back. `exited` settles
 * when the process ends (crash, kill, machine gone); requests then reject with a
 * `SandboxExitError` saying why.
 */
export class GuestRepl implements SandboxHost<ToolMessage> {
  readonly exited: Promise<string>;
  onToolCall: ((message: ToolMessage) => void) | undefined;
  private control!: ExecControl;
  private pendingLine = "";
  private waiting: ((message: HarnessMessage) => void) | undefined;
  /** The request before the next one: requests wait for each other's answers. */
  private queue: Promise<unknown> = Promise.resolve();
  private dead: string | undefined;
  /** Why the exec itself failed (it never started, or the machine died), when it did. */
  private execError: unknown;

  /** The harness's exec id on the agent channel: a snapshot records it, a restore attaches to it. */
  readonly execId: number;

  private constructor(
    machine: Machine,
    private readonly maxLineChars: number,
    attachTo?: number,
  ) {
    const options = {
      control: (handle: ExecControl) => {
        this.control = handle;
      },
      onStdout: (chunk: Uint8Array) => this.onStdout(chunk),
    };
    // exec takes the next id synchronously, so it is known before the command is sent.
    this.execId = attachTo ?? machine.nextExecId;
    const running =
      attachTo === undefined
        ? machine.exec(["/usr/bin/python3", "-I", "-S", "-u", "-c", guestHarness()], {
            cwd: "/root",
            ...options,
          })
        : machine.attach(attachTo, options);
    this.exited = running
      .then(
        (result) =>
          `the Python process in the guest ended (exit code ${result.exitCode})${result.stderr ? `: ${result.stderr.trim().slice(-500)}` : ""}`,
        (error: unknown) => {
          this.execError = error;
          return `the guest is gone: ${error instanceof Error ? error.message : String(error)}`;
        },
      )
      .then((reason) => {
        // A reason found before the end (a line that broke the protocol) says more than the exit.
        this.dead ??= reason;
        return this.dead;
      });
  }

  /** Starts the harness and waits for its `ready` line. */
  static async start(
    machine: Machine,
    maxLineChars: number = DEFAULT_MICRO_VM_EXECUTOR_LIMITS.maxHarnessLineChars,
  ): Promise<GuestRepl> {
    const repl = new GuestRepl(machine, maxLineChars);
    const ready = await repl.next().catch((error: unknown) => {
      const cause = repl.execError;
      if (cause instanceof GuestFileError && cause.errno === ENOENT)
        throw new ConfigError(
          `the machine's image has no /usr/bin/python3 (${cause.message}); give an image with Python, e.g. buildDebianPythonImage()`,
        );
      throw cause ?? error;
    });
    if (ready.op !== "ready") throw new Error(`the guest harness said ${ready.op} before ready`);
    return repl;
  }

  /**
   * The harness of a machine restored from a snapshot (`Machine.restore`), still running as it
   * was: no `ready` line comes again. Its exec id is the one the snapshot recorded.
   */
  static attach(
    machine: Machine,
    execId: number,
    maxLineChars: number = DEFAULT_MICRO_VM_EXECUTOR_LIMITS.maxHarnessLineChars,
  ): GuestRepl {
    return new GuestRepl(machine, maxLineChars, execId);
  }

  get healthy(): boolean {
    return this.dead === undefined;
  }

  /**
   * Sends one request once the requests before it are answered; resolves with the harness's
   * answer, or rejects with why the process died.
   */
  request(message: Record<string, unknown>): Promise<HarnessMessage> {
    const answer = this.queue.then(() => {
      const next = this.next();
      this.send(message);
      return next;
    });
    this.queue = answer.catch(() => undefined);
    return answer;
  }

  /**
   * The next answer that is not a tool call, without sending anything: on a restored machine
   * whose harness was waiting on a tool call, the step's `done` once that call is answered.
   */
  nextAnswer(): Promise<HarnessMessage> {
    const answer = this.queue.then(() => this.next());
    this.queue = answer.catch(() => undefined);
    return answer;
  }

  send(message: Record<string, unknown>): void {
    if (!this.dead) this.control.write(`${JSON.stringify(message)}\n`);
  }

  /** SIGINT to the step in progress (it raises KeyboardInterrupt there). */
  interrupt(): void {
    if (!this.dead) this.control.kill(SIGINT);
  }

  /** Kills the process group at once and waits until the exec has ended. */
  async terminate(): Promise<void> {
    if (!this.dead) {
      this.control.kill(SIGKILL);
      this.control.closeStdin();
    }
    await this.exited;
  }

  /** The next non-tool line, or a rejection once the process has ended. */
  private next(): Promise<HarnessMessage> {
    return new Promise((resolve, reject) => {
      if (this.dead) return reject(new SandboxExitError(this.dead));
      this.waiting = resolve;
      void this.exited.then((reason) => {
        if (this.waiting === resolve) {
          this.waiting = undefined;
          reject(new SandboxExitError(reason));
        }
      });
    });
  }

  private onStdout(chunk: Uint8Array): void {
    if (this.dead) return;
    // What was pending holds no newline: search the new text only, not the whole line again.
    const searchFrom = this.pendingLine.length;
    this.pendingLine += Buffer.from(chunk).toString("utf8");
    let newline = this.pendingLine.indexOf("\n", searchFrom);
    if (newline < 0 && this.pendingLine.length > this.maxLineChars) {
      // Not the harness (its lines end): code that writes to fd 1 itself. Bounded, then killed.
      this.dead = `the guest wrote a line of over ${this.maxLineChars} characters on the harness's channel (maxHarnessLineChars)`;
      this.pendingLine = "";
      this.control.kill(SIGKILL);
      return;
    }
    while (newline >= 0) {
      const line = this.pendingLine.slice(0, newline);
      this.pendingLine = this.pendingLine.slice(newline + 1);
      newline = this.pendingLine.indexOf("\n");
      if (!line) continue;
      let message: HarnessMessage;
      try {
        message = JSON.parse(line) as HarnessMessage;
      } catch {
        // Only the harness writes here; a line that is not its JSON means the channel is lost.
        this.dead ??= `the guest harness wrote a line that is not its protocol: ${line.slice(0, 200)}`;
        this.control.kill(SIGKILL);
        return;
      }
      if (message.op === "tool") this.onToolCall?.(message);
      else {
        const waiting = this.waiting;
        this.waiting = undefined;
        waiting?.(message);
      }
    }
  }
}
