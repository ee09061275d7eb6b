import { type ChildProcess, spawn } from "node:child_process";
import { getDefaultEnvironment } from "@modelcontextprotocol/sdk/client/stdio.js";
import { ReadBuffer, serializeMessage } from "@modelcontextprotocol/sdk/shared/stdio.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import type { McpStdioServerConfig } from "../config/server-config.js";
import { McpServerError } from "../errors.js";
import { DEFAULT_MCP_LIMITS } from "../limits.js";
import { killGroup, trackChildGroup, untrackChildGroup } from "./child-processes.js";
import { EventLoopHold } from "./event-loop-hold.js";
import { describeSpawnFailure } from "./spawn-failure.js";

/**
 * The SDK's stdio client transport, reshaped for an agent host: the server leads its own
 * process group (so close() and host exit reach grandchildren too), its stderr is kept as a
 * bounded tail instead of flooding the host's terminal, and its exit status is recorded so a
 * server that dies at start is reported with its code and last words. The process holds the
 * host's event loop only while a request waits for its answer (see EventLoopHold).
 */
export class StdioProcessTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  private child: ChildProcess | undefined;
  private readonly readBuffer = new ReadBuffer();
  private stderr = "";
  private exit: { code: number | null; signal: NodeJS.Signals | null; byUs: boolean } | undefined;
  private exited: Promise<void> | undefined;
  private closing = false;
  private hold: EventLoopHold | undefined;

  constructor(
    private readonly server: string,
    private readonly config: McpStdioServerConfig,
    private readonly onStderr?: (chunk: string) => void,
  ) {}

  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** Why the process ended by itself, for error messages: exit status plus the tail of stderr. */
  describeExit(): string | undefined {
    if (!this.exit || this.exit.byUs) return undefined;
    const status = this.exit.signal
      ? `was killed by ${this.exit.signal}`
      : `exited with code ${this.exit.code}`;
    const said = this.stderr.trim();
    return said ? `${status}; stderr: ${said}` : status;
  }

  start(): Promise<void> {
    if (this.child) throw new McpServerError(this.server, "CONFIG", "transport already started");
    const { command, args = [], env, cwd } = this.config;
    const childEnv = { ...getDefaultEnvironment(), ...env };
    return new Promise((resolve, reject) => {
      const child = spawn(command, args, {
        env: childEnv,
        cwd,
        stdio: ["pipe", "pipe", "pipe"],
        detached: true,
        shell: false,
      });
      this.child = child;
      this.exited = new Promise((done) => child.once("exit", () => done()));
      child.once("spawn", () => {
        if (child.pid !== undefined) trackChildGroup(child.pid);
        this.hold = new EventLoopHold(child);
        resolve();
      });
      child.once("error", (error: NodeJS.ErrnoException) => {
        const reason = describeSpawnFailure(command, error, cwd, childEnv.PATH);
        const failure = new McpServerError(this.server, "UNAVAILABLE", reason, { cause: error });
        reject(failure);
        this.onerror?.(failure);
      });
      child.once("exit", (code, signal) => {
        this.exit = { code, signal, byUs: this.closing };
        if (child.pid !== undefined) untrackChildGroup(child.pid);
      });
      child.once("close", () => this.onclose?.());
      child.stdout?.on("data", (chunk: Buffer) => {
        try {
          this.readBuffer.append(chunk);
        } catch (error) {
          // A line over the SDK's buffer limit (10 MB) without a newline: the server is broken.
          this.onerror?.(
            new McpServerError(this.server, "LIMIT_EXCEEDED", (error as Error).message, { isFatal: false }),
          );
          void this.close();
          return;
        }
        this.drain();
      });
      child.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
        this.stderr = (this.stderr + chunk).slice(-DEFAULT_MCP_LIMITS.maxStderrTailChars);
        this.onStderr?.(chunk);
      });
      // A server that dies mid-write makes stdin emit EPIPE; the exit itself is reported by "close".
      child.stdin?.on("error", () => {});
    });
  }

  private drain(): void {
    for (;;) {
      let message: JSONRPCMessage | null;
      try {
        message = this.readBuffer.readMessage();
      } catch (error) {
        // Servers that log to stdout: the line is skipped and the session goes on.
        this.onerror?.(
          new McpServerError(
            this.server,
            "PARSE",
            `sent a line that is not JSON-RPC: ${(error as Error).message}`,
          ),
        );
        continue;
      }
      if (message === null) return;
      this.hold?.received(message);
      this.onmessage?.(message);
    }
  }

  send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.child?.stdin;
    if (!stdin || this.exit) {
      const why = this.exit ? (this.describeExit() ?? "closed") : "not started";
      // Not fatal: one dead server must not end a run that has others.
      return Promise.reject(
        new McpServerError(this.server, "CLOSED", `is not running (${why})`, { isFatal: false }),
      );
    }
    this.hold?.sent(message);
    return new Promise((resolve) => {
      if (stdin.write(serializeMessage(message))) resolve();
      else stdin.once("drain", resolve);
    });
  }

  /** Closes stdin, then escalates to SIGTERM and SIGKILL of the whole group if the server lingers. */
  async close(): Promise<void> {
    const child = this.child;
    if (!child || child.pid === undefined) return;
    const pid = child.pid;
    this.closing = true;
    this.hold?.pin();
    const gone = () => this.exit !== undefined;
    if (!gone()) {
      child.stdin?.end();
      await waitFor(this.exited!, DEFAULT_MCP_LIMITS.stdioExitGraceMs);
    }
    if (!gone() && killGroup(pid, "SIGTERM"))
      await waitFor(this.exited!, DEFAULT_MCP_LIMITS.stdioTermGraceMs);
    // Also reaches grandchildren that outlived the leader.
    killGroup(pid, "SIGKILL");
    if (!gone()) await this.exited;
    untrackChildGroup(pid);
    this.readBuffer.clear();
  }
}

function waitFor(promise: Promise<void>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([promise, new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))]).finally(
    () => clearTimeout(timer),
  );
}
