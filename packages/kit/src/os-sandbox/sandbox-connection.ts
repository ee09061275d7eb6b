import type { ChildProcess } from "node:child_process";
import type { Socket } from "node:net";
import { type CallOptions, RemoteEndpoint, type RemoteEndpointOptions } from "../remote/remote-endpoint.js";
import type { OsSandboxProcess } from "./launch-os-sandbox.js";

export interface SandboxCallOptions extends CallOptions {
  /**
   * The call runs guest code: counted in `runsPending` while it waits (tool calls are only
   * legitimate then), and bounded by the executor's own watchdog rather than `timeoutMs`.
   */
  run?: boolean;
}

/**
 * The host's side of one OS-sandboxed process that serves an object (`serveRemote`): the
 * checked channel over its stdin and stdout, the process's end reported on that channel (with
 * the last words it wrote to stderr), and its lifetime. An idle sandbox never keeps the host
 * process alive; one with a call pending, or being terminated, does. Executors build their
 * sandbox clients on it.
 */
export class SandboxConnection {
  readonly endpoint: RemoteEndpoint;
  /** Calls with `run: true` waiting for their reply. */
  runsPending = 0;
  private readonly child: ChildProcess;
  private readonly closed: Promise<void>;

  constructor(
    private readonly sandbox: OsSandboxProcess,
    options: Omit<RemoteEndpointOptions, "input" | "output">,
  ) {
    const child = sandbox.child;
    this.child = child;
    this.closed = new Promise((resolve) => child.once("close", () => resolve()));
    this.endpoint = new RemoteEndpoint({
      ...options,
      input: child.stdin as NonNullable<ChildProcess["stdin"]>,
      output: child.stdout as NonNullable<ChildProcess["stdout"]>,
    });
    child.once("close", (code, signal) => {
      const said = sandbox.stderrTail().split("\n").slice(-3).join(" / ");
      const why = signal ? `signal ${signal}` : `exit code ${String(code)}`;
      this.endpoint.close(`the sandbox process ended (${why})${said ? `: ${said}` : ""}`);
    });
    child.once("error", (error) =>
      this.endpoint.close(`the sandbox process could not start: ${error.message}`),
    );
    // A sandbox that breaks the channel is not trusted with another message: it goes.
    this.endpoint.onClose(() => this.kill());
    this.hold(false);
  }

  async call(method: string, args: unknown[], options: SandboxCallOptions = {}): Promise<unknown> {
    const { run, ...callOptions } = options;
    if (this.endpoint.pendingCalls === 0) this.hold(true);
    if (run) this.runsPending++;
    try {
      return await this.endpoint.call(
        method,
        args,
        run ? { ...callOptions, timeoutMs: undefined } : callOptions,
      );
    } finally {
      if (run) this.runsPending--;
      if (this.endpoint.pendingCalls === 0) this.hold(false);
    }
  }

  /** Closes the channel with `reason` (failing every pending call) and kills the process. */
  kill(reason = "the sandbox was killed"): void {
    this.endpoint.close(reason);
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill("SIGKILL");
  }

  /** Kills the process and waits until it is gone, keeping the host alive meanwhile. */
  async terminate(reason: string): Promise<void> {
    this.hold(true);
    this.kill(reason);
    await this.closed;
  }

  /** The process's last words on stderr (bubblewrap's or Node's), for diagnostics. */
  stderrTail(): string {
    return this.sandbox.stderrTail();
  }

  /** Whether the process (and its pipes) keeps the host's event loop alive. */
  private hold(on: boolean): void {
    for (const handle of [
      this.child,
      this.child.stdout as Socket | null,
      this.child.stderr as Socket | null,
    ]) {
      if (on) handle?.ref?.();
      else handle?.unref?.();
    }
  }
}
